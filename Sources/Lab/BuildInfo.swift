/// What `jpreplay --version` prints: the package version and the commit the binary was built
/// from.
///
/// The package version is a constant (`packageVersion`; bump it with a release). The commit is
/// stamped at build time by the BuildStamp plugin (`Plugins/BuildStamp`: `git rev-parse HEAD`
/// in the package before every build of `jpreplay`), so a binary keeps naming its own commit
/// after the checkout moves on, and a copy of it anywhere says the same. A build outside a git
/// checkout (a source archive) or without git says "unknown".
package enum BuildInfo {
  /// The package's version (semantic versioning).
  package static let packageVersion = "0.1.0"

  /// "jpreplay 0.1.0 (built from git 1a2b3c4d5e6f)", with ", Package.swift or Sources/
  /// changed since" when the tree differed from that commit, or "jpreplay 0.1.0 (built from
  /// an unknown commit: not a git checkout)".
  ///
  /// - Parameters:
  ///   - commit: the stamped commit id, or "unknown".
  ///   - treeChanged: whether Package.swift or Sources/ differed from it at build time.
  package static func versionLine(commit: String, treeChanged: Bool) -> String {
    guard isCommitID(commit) else { return "jpreplay \(packageVersion) (built from an unknown commit: not a git checkout)" }
    let changed = treeChanged ? ", Package.swift or Sources/ changed since" : ""
    return "jpreplay \(packageVersion) (built from git \(commit.prefix(12))\(changed))"
  }

  /// A full commit id: 40 (SHA-1) or 64 (SHA-256) lowercase hex digits.
  static func isCommitID(_ s: String) -> Bool {
    (s.utf8.count == 40 || s.utf8.count == 64) && s.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
  }
}

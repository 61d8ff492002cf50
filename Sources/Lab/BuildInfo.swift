import Foundation
import Recording

/// What `jpreplay --version` prints: the package version and, when the binary sits in a git
/// checkout's build folder, that checkout's commit.
///
/// The package version is a constant (`packageVersion`; bump it with a release). The commit is
/// not baked in at build time (that takes a SwiftPM build plugin, a dependency every build
/// pays for); it is read when asked, from the files of the checkout the binary was built in:
/// the directory above the `.build` folder that holds the executable, its `.git` (a folder,
/// or a file `gitdir: …` in a worktree), `HEAD`, the loose ref or `packed-refs`. No process is
/// run and git need not be installed. The commit is the checkout's HEAD at the time of the
/// call, so a binary that was not rebuilt after a commit or checkout reports the newer HEAD;
/// the line says "checkout at" to make that plain. A binary outside a `.build` folder (copied
/// to /usr/local/bin, say) prints the version alone.
public enum BuildInfo {
  /// The package's version (semantic versioning).
  public static let packageVersion = "0.1.0"

  /// The most parent folders walked up from the executable looking for `.build`.
  public static let parentsWalkedMax = 8
  /// The largest git metadata file read (HEAD, a loose ref, `.git`; `packed-refs` may be larger).
  public static let gitFileBytesMax = 4096
  /// The largest `packed-refs` read.
  public static let packedRefsBytesMax = 4 << 20

  /// "jpreplay 0.1.0 (git 1a2b3c4d5e6f, checkout at /path)" or "jpreplay 0.1.0".
  public static func versionLine(executable: String) -> String {
    guard let root = checkoutRoot(executable: executable), let commit = headCommit(checkout: root) else {
      return "jpreplay \(packageVersion)"
    }
    return "jpreplay \(packageVersion) (git \(commit.prefix(12)), checkout at \(root))"
  }

  /// The folder holding the `.build` folder the executable is in, when that folder has `.git`.
  public static func checkoutRoot(executable: String) -> String? {
    var dir = URL(fileURLWithPath: executable).folder
    for _ in 0..<parentsWalkedMax {
      if dir.fileName == ".build" {
        let root = dir.folder
        let git = root.joined(".git").path
        return FileManager.default.fileExists(atPath: git) ? root.path : nil
      }
      let up = dir.folder
      if up.path == dir.path { return nil }
      dir = up
    }
    return nil
  }

  /// The full commit id HEAD names in the checkout at `root`; nil when it cannot be read.
  public static func headCommit(checkout root: String) -> String? {
    guard let gitDir = gitDirectory(root) else { return nil }
    guard let head = readSmall(gitDir + "/HEAD")?.trimmingCharacters(in: .whitespacesAndNewlines) else { return nil }
    if isCommitID(head) { return head }
    guard head.hasPrefix("ref: ") else { return nil }
    let ref = String(head.dropFirst(5))
    guard ref.hasPrefix("refs/"), !ref.contains("..") else { return nil }
    // A worktree's refs live in the common directory (`commondir`), except its own HEAD.
    var dirs = [gitDir]
    if let common = readSmall(gitDir + "/commondir")?.trimmingCharacters(in: .whitespacesAndNewlines), !common.isEmpty {
      dirs.append(common.hasPrefix("/") ? common : gitDir + "/" + common)
    }
    for d in dirs {
      if let id = readSmall(d + "/" + ref)?.trimmingCharacters(in: .whitespacesAndNewlines), isCommitID(id) { return id }
    }
    for d in dirs {
      guard let packed = read(d + "/packed-refs", max: packedRefsBytesMax) else { continue }
      for line in packed.split(separator: "\n") {
        let parts = line.split(separator: " ", maxSplits: 1)
        if parts.count == 2, parts[1] == ref, isCommitID(String(parts[0])) { return String(parts[0]) }
      }
    }
    return nil
  }

  /// `.git` as a folder, or the folder a `.git` file (`gitdir: …`) points to.
  static func gitDirectory(_ root: String) -> String? {
    let dotGit = root + "/.git"
    var isDir: ObjCBool = false
    guard FileManager.default.fileExists(atPath: dotGit, isDirectory: &isDir) else { return nil }
    if isDir.boolValue { return dotGit }
    guard let text = readSmall(dotGit), text.hasPrefix("gitdir: ") else { return nil }
    let path = text.dropFirst(8).trimmingCharacters(in: .whitespacesAndNewlines)
    return path.hasPrefix("/") ? path : root + "/" + path
  }

  static func isCommitID(_ s: String) -> Bool {
    (s.utf8.count == 40 || s.utf8.count == 64) && s.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
  }

  static func readSmall(_ path: String) -> String? { read(path, max: gitFileBytesMax) }

  /// A regular file's text, or nil (missing, not regular, larger than `max`, not UTF-8).
  static func read(_ path: String, max: Int) -> String? {
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
      attributes[.type] as? FileAttributeType == .typeRegular,
      let size = attributes[.size] as? Int, size <= max,
      let data = FileManager.default.contents(atPath: path)
    else { return nil }
    return String(data: data, encoding: .utf8)
  }
}

import Foundation
import SystemPackage

/// The one set of path computations of the package, over swift-system's `FilePath` (lexical:
/// nothing here touches the file system). Every parent folder, file name, extension and join
/// in Sources goes through these; NSString's path methods (`deletingLastPathComponent`, …)
/// trap in Linux Foundation for some inputs (a one-character path) and URL's make relative
/// paths absolute, so neither is used (Tests/ArchitectureTests/SourceRulesTests checks).
///
/// Paths stay `String`s at the seams (messages print them as given): `parent("q")` is `""`
/// (as a shell's `${p%/*}` would leave nothing), `join("", "x")` is `"x"`, and
/// `directory(of: "q")` is `"."` for a call that opens the folder.
package enum Paths {
  /// The path without its last component: `"a/b"` → `"a"`, `"/a"` → `"/"`, `"/"` → `"/"`,
  /// `"q"` → `""`. Repeated and trailing separators are collapsed (`"a//b/"` → `"a"`).
  package static func parent(_ path: String) -> String {
    FilePath(path).removingLastComponent().string
  }

  /// The folder a path is in, to open or create: `parent(path)`, or `"."` when that is empty.
  package static func directory(of path: String) -> String {
    let p = parent(path)
    return p.isEmpty ? "." : p
  }

  /// The last component: `"a/b.json"` → `"b.json"`, `"q"` → `"q"`, `"a/b/"` → `"b"`; `"/"` → `"/"`
  /// and `""` → `""`.
  package static func name(_ path: String) -> String {
    // A path without a separator is its own last component (and "" stays ""): no FilePath,
    // whose checks cost more than the answer when a folder's file names are read one by one.
    if !path.utf8.contains(UInt8(ascii: "/")) { return path }
    let p = FilePath(path)
    if let c = p.lastComponent { return c.string }
    return p.root?.string ?? ""
  }

  /// `dir` and `name` joined with one separator; `name` alone when `dir` is empty. A `name`
  /// holding separators adds each of its components (`join("a", "b/c")` = `"a/b/c"`); an
  /// absolute `name` is still appended under `dir` (`join("a", "/b")` = `"a/b"`).
  package static func join(_ dir: String, _ name: String) -> String {
    guard !dir.isEmpty else { return name }
    return FilePath(dir).appending(name).string
  }

  /// The last component's extension without the dot (`"a/b.jprec"` → `"jprec"`,
  /// `"a.tar.gz"` → `"gz"`), or `""` when it has none (`"b"`, `".hidden"`).
  package static func fileExtension(_ path: String) -> String {
    FilePath(path).extension ?? ""
  }

  /// The last component without its extension: `"a/b.trace.jsonl"` → `"b.trace"`, `"b"` → `"b"`.
  package static func stem(_ path: String) -> String {
    FilePath(path).stem ?? name(path)
  }

  /// The path with its last component's extension removed: `"a/b.jprec"` → `"a/b"`.
  package static func removingExtension(_ path: String) -> String {
    var p = FilePath(path)
    p.extension = nil
    return p.string
  }

  /// The longest prefix of `name` that is at most `bytes` bytes of UTF-8 and ends on a
  /// character boundary (file names are limited in bytes: NAME_MAX, 255 on Linux and macOS).
  package static func prefix(of name: String, utf8Bytes bytes: Int) -> String {
    guard name.utf8.count > bytes else { return name }
    var out = ""
    var used = 0
    for ch in name {
      let n = ch.utf8.count
      if used + n > bytes { break }
      out.append(ch)
      used += n
    }
    return out
  }

  /// A file name's bytes as text a user can tell apart and type: valid UTF-8 as it is, every
  /// byte that is not part of valid UTF-8 as `\xNN` (`a\xFFb.jprec`) and a backslash as `\\`,
  /// so bash's `$'…'` reads it back. Foundation reads such a name with U+FFFD in place of those
  /// bytes, which loses them.
  package static func spelled(_ bytes: [UInt8]) -> String {
    var out = ""
    var i = 0
    while i < bytes.count {
      let b = bytes[i]
      let n = b < 0x80 ? 1 : b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 0
      if n > 0, i + n <= bytes.count, let s = String(validating: bytes[i..<(i + n)], as: UTF8.self) {
        out += s == "\\" ? "\\\\" : s
        i += n
      } else {
        out += "\\x" + (b < 0x10 ? "0" : "") + String(b, radix: 16, uppercase: true)
        i += 1
      }
    }
    return out
  }

  /// `name` with every run of U+FFFD as one (decoders differ in how many they put for one
  /// undecodable sequence).
  package static func collapsingReplacements(_ name: String) -> String {
    var out = String.UnicodeScalarView()
    for u in name.unicodeScalars where !(u == "\u{FFFD}" && out.last == "\u{FFFD}") { out.append(u) }
    return String(out)
  }

  /// The longest file name jpreplay makes or expects (POSIX NAME_MAX on Linux and macOS).
  package static let nameMax = 255
}

extension URL {
  /// This file URL with `name` appended (`Paths.join`): URL's own path methods are not used.
  package func joined(_ name: String) -> URL { URL(fileURLWithPath: Paths.join(path, name)) }
  /// The last component of this file URL's path (`Paths.name`).
  package var fileName: String { Paths.name(path) }
  /// The folder this file URL is in (`Paths.directory(of:)`, an absolute path stays absolute).
  package var folder: URL { URL(fileURLWithPath: Paths.directory(of: path)) }
  /// The last component without its extension (`Paths.stem`).
  package var fileStem: String { Paths.stem(path) }
  /// The last component's extension, `""` when none (`Paths.fileExtension`).
  package var fileExtension: String { Paths.fileExtension(path) }
}

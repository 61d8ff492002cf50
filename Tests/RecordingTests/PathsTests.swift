import Foundation
import Testing

@testable import Recording

/// `Paths` (issue 34 item 1): the one set of path computations, over swift-system's `FilePath`.
/// NSString's `deletingLastPathComponent` trapped in Linux Foundation on a one-character path
/// (`replay … -o q` died with SIGILL in `SafeFile.syncDirectory`).
@Suite struct PathsTests {
  @Test func parentsAndNames() {
    #expect(Paths.parent("q") == "")
    #expect(Paths.directory(of: "q") == ".")
    #expect(Paths.parent("a/b") == "a")
    #expect(Paths.parent("/a") == "/")
    #expect(Paths.parent("/") == "/")
    #expect(Paths.parent("a//b/") == "a")
    #expect(Paths.parent("") == "")
    #expect(Paths.directory(of: "") == ".")
    #expect(Paths.name("q") == "q")
    #expect(Paths.name("a/b.json") == "b.json")
    #expect(Paths.name("a/b/") == "b")
    #expect(Paths.name("/") == "/")
    #expect(Paths.name("") == "")
    #expect(Paths.name("-") == "-")
    // Without a separator the name is the path itself (the fast path), as FilePath says.
    for p in [".", "..", "a\\b", " x ", "a\u{FFFD}b.jprec"] { #expect(Paths.name(p) == p, "\(p)") }
  }

  @Test func joinsExtensionsAndStems() {
    #expect(Paths.join("", "x") == "x")
    #expect(Paths.join("a", "x") == "a/x")
    #expect(Paths.join("a/", "x") == "a/x")
    #expect(Paths.join("/", "x") == "/x")
    #expect(Paths.join("a", "b/c") == "a/b/c")
    #expect(Paths.fileExtension("a/b.jprec") == "jprec")
    #expect(Paths.fileExtension("b") == "")
    #expect(Paths.fileExtension(".hidden") == "")
    #expect(Paths.stem("a/b.trace.jsonl") == "b.trace")
    #expect(Paths.stem("q") == "q")
    #expect(Paths.removingExtension("a/b.jprec") == "a/b")
    #expect(URL(fileURLWithPath: "/x/y/z.jprec").fileStem == "z")
    #expect(URL(fileURLWithPath: "/x/y/z.jprec").folder.path == "/x/y")
    #expect(URL(fileURLWithPath: "/x").joined("y z").path == "/x/y z")
  }

  @Test func prefixesCutOnCharacters() {
    #expect(Paths.prefix(of: "abc", utf8Bytes: 10) == "abc")
    #expect(Paths.prefix(of: "abc", utf8Bytes: 2) == "ab")
    #expect(Paths.prefix(of: "éé", utf8Bytes: 3) == "é")
    #expect(Paths.prefix(of: "é", utf8Bytes: 1) == "")
  }

  /// The call that trapped (SIGILL) on `-o q`: the folder of a one-character path is ".".
  @Test func syncingTheFolderOfAOneCharacterPathDoesNotTrap() {
    SafeFile.syncDirectory(of: "q")
    SafeFile.syncDirectory(of: "/")
    SafeFile.syncDirectory(of: "")
  }
}

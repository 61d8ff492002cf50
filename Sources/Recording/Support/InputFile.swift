import EngineIO
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Input files are regular files (issue 23 item 7): a FIFO, a device, a socket or a directory
/// given as a recording, a scenario or a spec is refused before it is opened — opening a FIFO
/// for reading would block until a writer comes, a device can be endless. Symbolic links are
/// followed; a loop or a name that is not valid UTF-8 is named as such, not as "no such file".
package enum InputFile {
  /// Throws unless `path` is (or links to) a regular file; `what` names the role in messages
  /// ("recording", "scenario").
  package static func checkRegular(_ path: String, what: String) throws(RecordingError) {
    var st = stat()
    guard stat(path, &st) == 0 else {
      let code = errno
      switch code {
      case ENOENT:
        var l = stat()
        if lstat(path, &l) == 0 { throw RecordingError(file: path, "a symbolic link to nothing") }
        if path.unicodeScalars.contains("\u{FFFD}") {
          let spelled = undecodableSpellings(path)
          if !spelled.isEmpty { throw RecordingError(file: spelled.joined(separator: ", "), undecodableSpelled) }
          throw RecordingError(file: path, undecodableName)
        }
        throw RecordingError(file: path, "no such file")
      case ELOOP: throw RecordingError(file: path, "a loop of symbolic links")
      case ENAMETOOLONG: throw RecordingError(file: path, "the path is too long")
      default: throw RecordingError(file: path, "cannot open for reading (\(String(cString: strerror(code))))")
      }
    }
    let kind: String
    switch st.st_mode & S_IFMT {
    case S_IFREG: return
    case S_IFDIR: kind = "a directory"
    case S_IFIFO: kind = "a FIFO"
    case S_IFCHR: kind = "a character device"
    case S_IFBLK: kind = "a block device"
    case S_IFSOCK: kind = "a socket"
    default: kind = "not a regular file"
    }
    throw RecordingError(file: path, "is \(kind); a \(what) must be a regular file")
  }

  /// Why a path holding U+FFFD that does not exist is refused: Foundation reads a file name
  /// that is not valid UTF-8 (a byte such as 0xFF) with U+FFFD in its place, and no such name
  /// can be opened again.
  package static let undecodableName =
    "no file of this name; a name shown with \u{FFFD} is one that is not valid UTF-8 (the tool reads names as UTF-8): rename the file"

  /// Why a name found by `undecodableSpellings` is refused (the file is named by its bytes).
  package static let undecodableSpelled =
    "the file name is not valid UTF-8 (\\xNN: a byte that is not UTF-8; the tool reads names as UTF-8): rename the file (in a shell: mv $'NAME' NEW)"

  /// The files `path` may stand for when its last component was read from a name that is not
  /// valid UTF-8 (Foundation puts U+FFFD in place of the bytes, so two such names look alike
  /// and neither can be typed): the names in its folder that are not valid UTF-8 and read as
  /// it, each spelled with its bytes (`Paths.spelled`: `a\xFFb.jprec`), sorted.
  package static func undecodableSpellings(_ path: String) -> [String] {
    let dir = Paths.directory(of: path)
    let wanted = Paths.collapsingReplacements(Paths.name(path))
    guard let d = opendir(dir) else { return [] }
    defer { closedir(d) }
    var found: [String] = []
    while let e = readdir(d) {
      let bytes: [UInt8] = withUnsafeBytes(of: &e.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
      guard String(validating: bytes, as: UTF8.self) == nil,
        Paths.collapsingReplacements(String(decoding: bytes, as: UTF8.self)) == wanted
      else { continue }
      found.append(Paths.join(Paths.parent(path), Paths.spelled(bytes)))
    }
    return found.sorted()
  }

  /// The whole of the regular file at `path`, at most `bytesMax` bytes (`bound` names the limit
  /// in the message): checked with ``checkRegular(_:what:)`` first, then read with read(2) up
  /// to one byte past the bound, so a large file is refused without being read. Failures
  /// carry the system's reason (strerror), never an error's debug description.
  package static func read(_ path: String, what: String, bytesMax: Int, bound: String) throws(RecordingError) -> [UInt8] {
    try checkRegular(path, what: what)
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else {
      throw RecordingError(file: path, "cannot open for reading (\(String(cString: strerror(errno))))")
    }
    defer { close(fd) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while out.count <= bytesMax {
      let want = min(chunk.count, bytesMax + 1 - out.count)
      let n = chunk.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress, want) }
      if n < 0 {
        if errno == EINTR { continue }
        throw RecordingError(file: path, "cannot read (\(String(cString: strerror(errno))))")
      }
      if n == 0 { return out }
      out.append(contentsOf: chunk[0..<n])
    }
    throw RecordingError(file: path, "more than \(bytesMax) bytes, the bound \(bound) for a \(what)")
  }
}

#if canImport(Glibc)
  private func systemRead(_ fd: Int32, _ buf: UnsafeMutableRawPointer?, _ n: Int) -> Int { Glibc.read(fd, buf, n) }
#elseif canImport(Darwin)
  private func systemRead(_ fd: Int32, _ buf: UnsafeMutableRawPointer?, _ n: Int) -> Int { Darwin.read(fd, buf, n) }
#endif

/// The reason a file-system call failed, for a message: the system's words (strerror) for a
/// POSIX error or the one under a Foundation error, a plain phrase for Foundation's common
/// file codes — never a debug description such as `Code(rawValue: 256)`.
package enum SystemReason {
  /// Whether `error` (or an error under it) is EPIPE: the reader closed the pipe.
  package static func isBrokenPipe(_ error: any Error) -> Bool {
    let ns = error as NSError
    if ns.domain == NSPOSIXErrorDomain && ns.code == Int(EPIPE) { return true }
    if let under = ns.userInfo[NSUnderlyingErrorKey] as? NSError { return isBrokenPipe(under) }
    return false
  }

  /// Any error as a message: a Foundation or POSIX error by its reason (`of`), a CLI or
  /// harness error by its own text — never `Code(rawValue: 256)`.
  package static func message(_ error: any Error) -> String {
    let ns = error as NSError
    if ns.domain == NSPOSIXErrorDomain || ns.domain == NSCocoaErrorDomain { return of(error) }
    return "\(error)"
  }

  package static func of(_ error: any Error) -> String {
    let ns = error as NSError
    if ns.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(ns.code))) }
    if let under = ns.userInfo[NSUnderlyingErrorKey] as? NSError { return of(under) }
    if let e = error as? CocoaError {
      switch e.code {
      case .fileNoSuchFile, .fileReadNoSuchFile: return "no such file"
      case .fileReadNoPermission, .fileWriteNoPermission: return "permission denied"
      case .fileWriteOutOfSpace: return "no space left on the device"
      case .fileWriteFileExists: return "a file of that name exists"
      case .fileWriteVolumeReadOnly: return "read-only file system"
      case .fileReadCorruptFile, .fileReadInapplicableStringEncoding: return "not readable as text"
      case .fileReadTooLarge: return "too large"
      default: return "file system error \(e.code.rawValue)"
      }
    }
    return "error \(ns.code) (\(ns.domain))"
  }
}

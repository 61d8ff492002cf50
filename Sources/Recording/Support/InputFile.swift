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
public enum InputFile {
  /// Throws unless `path` is (or links to) a regular file; `what` names the role in messages
  /// ("recording", "scenario").
  public static func checkRegular(_ path: String, what: String) throws(RecordingError) {
    var st = stat()
    guard stat(path, &st) == 0 else {
      let code = errno
      switch code {
      case ENOENT:
        var l = stat()
        throw RecordingError(file: path, lstat(path, &l) == 0 ? "a symbolic link to nothing" : "no such file")
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
}

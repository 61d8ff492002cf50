import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The one output rule of every file jpreplay writes (`-o`, `--junit`, `--svg`, `--a13`,
/// `--keep-store`, goldens, `tune promote`, …), decided before anything is written:
///
/// - a **missing path or a regular file** is replaced atomically (a temporary beside it, then
///   rename(2)): readers see the old or the new file, never a part;
/// - a **symbolic link** to a character device or a FIFO (`/dev/stdout` is one) is written
///   through; a link to a file, a folder or nothing is refused — a link planted where jpreplay
///   writes (`Golden/x.new`) must never carry the output elsewhere, and replacing the link
///   would change what the user named;
/// - a **character device or a FIFO** (`/dev/stdout`, `/dev/null`, a named pipe) is written
///   through: the output is made in a temporary file first, then copied into it; a database
///   output (a recording, a session store) refuses them;
/// - a **directory, block device or socket** is refused.
///
/// Refusals are `SafeFileError`s naming the path and the reason (exit 2 at the CLI).
package enum OutputTarget: Equatable, Sendable {
  /// Replace this regular file (or create it): the resolved path.
  case replace(String)
  /// Write into this existing character device or FIFO.
  case writeThrough(String)

  package init(_ path: String, database: Bool = false) throws(SafeFileError) {
    var st = stat()
    guard lstat(path, &st) == 0 else {
      guard errno == ENOENT else { throw SafeFileError(path: path, "cannot look at the output path", errno) }
      self = .replace(path)
      return
    }
    var resolved = path
    if (st.st_mode & S_IFMT) == S_IFLNK {
      guard let real = realpath(path, nil) else {
        throw SafeFileError(path: path, "is a symbolic link to nothing; give the path of the file to write")
      }
      resolved = String(cString: real)
      free(real)
      guard stat(resolved, &st) == 0 else { throw SafeFileError(path: path, "cannot look at the file it links to", errno) }
      let kind = st.st_mode & S_IFMT
      guard kind == S_IFCHR || kind == S_IFIFO else {
        throw SafeFileError(
          path: path, "is a symbolic link (to \(resolved)); jpreplay writes only through links to a device or FIFO — give the file's own path")
      }
    }
    switch st.st_mode & S_IFMT {
    case S_IFREG: self = .replace(resolved)
    case S_IFCHR, S_IFIFO:
      guard !database else {
        throw SafeFileError(path: path, "is a device or a FIFO; this output is a database file and needs a regular file")
      }
      self = .writeThrough(resolved)
    case S_IFDIR: throw SafeFileError(path: path, "is a directory; give a file path")
    case S_IFBLK: throw SafeFileError(path: path, "is a block device; refusing to write over it")
    default: throw SafeFileError(path: path, "is not a regular file, a character device or a FIFO; refusing to write")
    }
  }
}

extension SafeFile.Temporary {
  /// The temporary an output is made in: beside a replaced file, in the system's temporary
  /// folder for a write-through target.
  convenience init(for target: OutputTarget, keepOpen: Bool = true) throws(SafeFileError) {
    switch target {
    case .replace(let p): try self.init(beside: p, keepOpen: keepOpen)
    case .writeThrough(let p):
      let dir = FileManager.default.temporaryDirectory.path
      try self.init(beside: Paths.join(dir, Paths.name(p)), keepOpen: keepOpen)
    }
  }

  /// Puts the finished temporary at `target`: renamed over (or linked at) a replaced file;
  /// copied into a write-through target, then removed.
  func finish(into target: OutputTarget, placement: SafeFile.Placement) throws(SafeFileError) {
    switch target {
    case .replace(let p):
      switch placement {
      case .replace: try commit(to: p)
      case .createNew: try commitNew(to: p)
      }
    case .writeThrough(let p):
      try copyThrough(to: p)
      discard()
    }
  }
}

import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A child process for the CLI tests, spawned with posix_spawn and reaped with waitpid.
///
/// Why not Foundation's `Process`: with many children at once it can leave one unreaped (a
/// zombie Swift Testing's exit-test monitor then waits on for ever), and the child inherits
/// every descriptor the test process has open without close-on-exec — a test that is copying
/// an executable at that moment leaves a write descriptor in the child, and running the copy
/// fails with "Text file busy". Here the child gets exactly its three standard streams
/// (`closefrom` on Linux, `POSIX_SPAWN_CLOEXEC_DEFAULT` on macOS).
enum ChildProcess {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  struct Output {
    /// The exit status; 128 + the signal's number for a child a signal ended (as a shell says).
    var status: Int32
    var stdout: Data
    var stderr: Data
    /// The child's user + system CPU time (for `JPREPLAY_TEST_CPU_LOG`: where the suite's time
    /// goes; no test compares it).
    var cpuSeconds: Double
  }

  /// Runs `argv` (argv[0] a path) in `cwd` with `environment`, feeds it `stdin` (then end of
  /// file), and returns what it wrote once it has exited.
  static func run(_ argv: [String], cwd: String, environment: [String: String], stdin: Data) throws -> Output {
    let input = try pipe(), output = try pipe(), errors = try pipe()
    let pid: pid_t
    do {
      pid = try spawn(argv, cwd: cwd, environment: environment, streams: (input.read, output.write, errors.write))
    } catch {
      for fd in [input.read, input.write, output.read, output.write, errors.read, errors.write] { close(fd) }
      throw error
    }
    close(input.read)
    close(output.write)
    close(errors.write)
    // Feed and drain on their own threads so a full pipe never blocks either side.
    let feeder = Thread {
      signal(SIGPIPE, SIG_IGN)
      stdin.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
          let n = write(input.write, buffer.baseAddress! + offset, buffer.count - offset)
          if n < 0 && errno == EINTR { continue }
          if n <= 0 { break }  // the child closed its input: what is left is not read
          offset += n
        }
      }
      close(input.write)
    }
    let errorText = Drained()
    let drainer = Thread {
      errorText.data = readAll(errors.read)
      errorText.done = true
    }
    feeder.start()
    drainer.start()
    let out = readAll(output.read)
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) == -1 && errno == EINTR {}
    while !errorText.done || !feeder.isFinished { usleep(1000) }
    let cpu = seconds(usage.ru_utime) + seconds(usage.ru_stime)
    return Output(status: exitCode(status), stdout: out, stderr: errorText.data, cpuSeconds: cpu)
  }

  private final class Drained: @unchecked Sendable {
    var data = Data()
    var done = false
  }

  private static func readAll(_ fd: Int32) -> Data {
    var data = Data()
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { break }
      data.append(contentsOf: chunk[0..<n])
    }
    close(fd)
    return data
  }

  private static func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1_000_000 }

  private static func exitCode(_ status: Int32) -> Int32 {
    let signal = status & 0x7f
    return signal == 0 ? (status >> 8) & 0xff : 128 + signal
  }

  /// A pipe whose both ends are close-on-exec (the child gets its end by dup2, which clears it).
  private static func pipe() throws -> (read: Int32, write: Int32) {
    var fds: [Int32] = [0, 0]
    #if os(Linux)
      let rc = GNU.pipe2(&fds, O_CLOEXEC)
    #else
      let rc = Darwin.pipe(&fds)
      if rc == 0 { for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) } }
    #endif
    guard rc == 0 else { throw Failure(description: "pipe: \(String(cString: strerror(errno)))") }
    return (fds[0], fds[1])
  }

  /// Starts `argv` in `cwd` with its three standard streams on /dev/null and returns its pid;
  /// the caller reaps it with waitpid (the contract matrix polls it, to stop a hung cell).
  static func start(_ argv: [String], cwd: String, environment: [String: String]) throws -> pid_t {
    let null = open("/dev/null", O_RDWR | O_CLOEXEC)
    guard null >= 0 else { throw Failure(description: "/dev/null: \(String(cString: strerror(errno)))") }
    defer { close(null) }
    return try spawn(argv, cwd: cwd, environment: environment, streams: (null, null, null))
  }

  private static func spawn(
    _ argv: [String], cwd: String, environment: [String: String], streams: (Int32, Int32, Int32)
  ) throws -> pid_t {
    var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
    var cEnv: [UnsafeMutablePointer<CChar>?] = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      for p in cArgs { free(p) }
      for p in cEnv { free(p) }
    }
    #if os(Linux)
      var actions = posix_spawn_file_actions_t()
      var attributes = posix_spawnattr_t()
    #else
      var actions: posix_spawn_file_actions_t? = nil
      var attributes: posix_spawnattr_t? = nil
    #endif
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    posix_spawn_file_actions_adddup2(&actions, streams.0, 0)
    posix_spawn_file_actions_adddup2(&actions, streams.1, 1)
    posix_spawn_file_actions_adddup2(&actions, streams.2, 2)
    #if os(Linux)
      for rc in [GNU.addchdir(&actions, cwd), GNU.addclosefrom(&actions, 3)] where rc != 0 {
        throw Failure(description: "posix_spawn file actions: \(String(cString: strerror(rc)))")
      }
    #else
      posix_spawn_file_actions_addchdir_np(&actions, cwd)
      posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_CLOEXEC_DEFAULT))
    #endif
    var pid: pid_t = 0
    let rc = posix_spawn(&pid, argv[0], &actions, &attributes, &cArgs, &cEnv)
    guard rc == 0 else { throw Failure(description: "cannot start \(argv[0]): \(String(cString: strerror(rc)))") }
    return pid
  }
}

#if os(Linux)
  /// glibc's GNU extensions (2.34+) the Glibc module leaves out (it is built without
  /// _GNU_SOURCE), looked up by name with their C signatures.
  private enum GNU {
    static func symbol<T>(_ name: String, as: T.Type) -> T {
      guard let p = dlsym(nil, name) else { fatalError("glibc has no \(name) (2.34 or later is needed)") }
      return unsafeBitCast(p, to: T.self)
    }
    static let pipe2 = symbol("pipe2", as: (@convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32).self)
    static let addchdir = symbol(
      "posix_spawn_file_actions_addchdir_np",
      as: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32).self)
    static let addclosefrom = symbol(
      "posix_spawn_file_actions_addclosefrom_np",
      as: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
  }
#endif

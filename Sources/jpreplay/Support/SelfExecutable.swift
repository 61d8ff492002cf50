import Foundation

/// This executable's path, for commands that run it again (`verify --determinism`'s child
/// replays, `bisect commits`' `git bisect run` step): Foundation's `Bundle.main.executableURL`
/// (the running image on Linux and macOS alike), symbolic links resolved; the first argument
/// as a last resort.
enum SelfExecutable {
  static var path: String {
    if let url = Bundle.main.executableURL { return url.resolvingSymlinksInPath().path }
    return URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
  }
}

import ArgumentParser
import EngineIO
import Foundation
import JustPhotoPlugin
import Lab
import Recording
import JustPhotoScenarios

/// `jpreplay`: record, inspect, replay and verify Just Photo coaching sessions.
struct JPReplay: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "jpreplay",
    abstract: "Deterministic record/replay harness for the Just Photo coaching engine.",
    discussion: """
      Recordings (.jprec) replay through a virtual clock into the engine; its outputs are \
      diffed against golden files in Golden/.

      Exit codes: 0 ok, 1 behavioural difference or failed check, 2 bad input or usage (a \
      failed write to standard output too, for --help and --version as well; a reader that \
      closed the pipe, as `| head` does, is not an error). A full, closed or abandoned \
      standard error loses its text, never the exit code. `verify --bisect` and `bisect step` add \
      git's 125 (skip), `tune run` 3 (the search space is exhausted). This is the command-line \
      contract (docs/ARCHITECTURE.md), which every subcommand keeps.

      Every file jpreplay writes (-o, --a13, --junit, --svg, --keep-store, goldens, tune \
      studies, tune promote) follows one rule: a regular file or a missing path is replaced atomically; a \
      character device or FIFO, or a symbolic link to one (/dev/stdout), is written through; \
      a symbolic link to a file, a dangling link, a directory or a block device is refused \
      (exit 2), and a recording, session store or study (a database) needs a regular file. Inputs \
      (recordings, scenarios, studies) must be regular files: a FIFO is refused, never read.

      Typical loop:
        jpreplay record Recordings/drift-left-and-back.scenario.yaml
        jpreplay replay Recordings/drift-left-and-back.jprec
        jpreplay verify drift-left-and-back
        jpreplay review

      `jpreplay --version` prints the package version and the commit the binary was built \
      from (stamped at build time; "unknown" for a build outside a git checkout). Shell completion: \
      `jpreplay --generate-completion-script zsh` (or bash, fish); see the README.
      """,
    version: BuildInfo.versionLine(commit: buildCommit, treeChanged: buildTreeChanged),
    subcommands: [
      Record.self, Import.self, Cat.self, Info.self, Doctor.self, Spec.self, Replay.self, Verify.self,
      Review.self, Accept.self, Reject.self, Diff.self, Bisect.self, Minimize.self, CoverageCommand.self, Bench.self, Score.self, Plot.self,
      Export.self, Tune.self, Report.self, Faults.self, Engines.self,
    ])
}

@main
enum Main {
  static func main() {
    StandardError.guardClosedDescriptors()
    StandardOutput.install()
    do {
      var command = try JPReplay.parseAsRoot()
      try command.run()
      StandardOutput.finish()
    } catch let error as HarnessFailure {
      StandardOutput.finish()
      StandardError.write("jpreplay: " + ConsoleText.safe(Excerpt.message(error.message)) + "\n")
      exit(error.code)
    } catch let error as ScenarioError {
      StandardOutput.finish()
      StandardError.write("jpreplay: " + ConsoleText.safe(Excerpt.message(error.description)) + "\n")
      exit(2)
    } catch let error as RecordingError {
      StandardOutput.finish()
      StandardError.write("jpreplay: " + ConsoleText.safe(Excerpt.message(error.description)) + "\n")
      exit(2)
    } catch let error as SafeFileError {
      // A refused or failed write (the output rule, `accept` over a read-only Golden/): bad output.
      StandardOutput.finish()
      StandardError.write("jpreplay: " + ConsoleText.safe(Excerpt.message(error.description)) + "\n")
      exit(2)
    } catch let error as CLIError {
      StandardOutput.finish()
      StandardError.write("jpreplay: " + ConsoleText.safe(Excerpt.message(error.message)) + "\n")
      exit(error.code)
    } catch {
      // A reader that closed the pipe (`| head`) is not an error; another failed write is bad
      // output (exit 2) with the system's reason.
      if StandardOutput.isBrokenPipe(error) { exit(0) }
      StandardOutput.finish()
      if (error as NSError).domain == NSPOSIXErrorDomain || (error as NSError).domain == NSCocoaErrorDomain {
        StandardOutput.fail(CLIError.badInput("cannot write (\(StandardOutput.reason(error)))"))
      }
      let code = JPReplay.exitCode(for: error)
      let message = JPReplay.fullMessage(for: error)
      if code == .success {
        // `--help`, `--version`: their text is output like any other (a failed write is exit 2).
        do { if !message.isEmpty { try StandardOutput.write(Array((message + "\n").utf8)) } } catch {
          StandardOutput.fail(error)
        }
        StandardOutput.finish()
        exit(0)
      }
      if !message.isEmpty { StandardError.write(ConsoleText.lines(Console.quotingArguments(message)) + "\n") }
      // Usage errors are "bad input" (2) here, not sysexits' 64.
      exit(code.rawValue == ExitCode.validationFailure.rawValue ? 2 : code.rawValue)
    }
  }
}

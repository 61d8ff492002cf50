import ArgumentParser
import Foundation

extension JPReplay {
  struct Report: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "report",
      abstract: "Verify, then write the run as one self-contained HTML page to review by looking.",
      discussion: """
        Runs `verify` with the arguments given (recordings, --spec, --set, --time-tolerance, \
        --jobs, …; --update defaults to no here, so nothing is written but the page) and \
        writes one HTML file that opens from disk with no network: inline style, script and \
        drawings. Like `verify --html FILE`, except that --update defaults to no (verify's \
        default writes .new files outside CI) and -o defaults to jpreplay-report.html; \
        `diff --html FILE` makes one for a diff.

        The page holds a table of every divergence as an event (recording, file, t, cue, \
        kind: added, removed, shifted, new flicker, level changed, prompt changed, changed; \
        the differ's explanation and the engine's metric table around it), sortable and \
        filterable; a click opens the recording's timeline at that instant. The timeline \
        puts golden and new on one time axis with one cursor: the displayed cue of each, the \
        metric of the cue in focus against its warn/hard/enter/exit thresholds (hysteresis \
        band shaded), the gate's persist counter and cooldowns, praise and cards, prompts, \
        and the subject's landmarks at the cursor frame (another engine's recording: its \
        lanes, e.g. PixScan's index, queue, filter and sheet, golden above new). Zoom (+/−, wheel), pan (drag), \
        step frame by frame (←/→) or divergence by divergence (p/n); the address keeps \
        #rec=NAME&t=MS&cue=CUE, a link to that instant. Accept/reject per recording and \
        "export decisions" give a file for `jpreplay accept --decisions FILE`. A page whose \
        series pass 5 MB keeps each recording's series in a block of its own, parsed when the \
        recording is opened; timelines are built --jobs at a time.

        Exit codes as verify: 0 every recording passed, 1 a difference (the page is \
        written), 2 bad input.

        Examples:
          jpreplay report drift-left-and-back -o /tmp/report.html
          jpreplay report feet-cropped --set bboxRequiresAllListed=true -o /tmp/feet.html    # exit 1
          jpreplay verify feet-cropped --set bboxRequiresAllListed=true --update new --html /tmp/feet.html    # exit 1
          jpreplay diff Golden/feet-cropped.trace.jsonl Recordings/feet-cropped.jprec --set bboxRequiresAllListed=true --html /tmp/diff.html    # exit 1
        """)

    @Option(name: .shortAndLong, help: "The HTML file to write.")
    var output = "jpreplay-report.html"

    @Argument(parsing: .allUnrecognized, help: "verify's arguments and options.")
    var verifyArguments: [String] = []

    func run() throws {
      var args = verifyArguments
      if !args.contains(where: { $0 == "--update" || $0.hasPrefix("--update=") }) { args += ["--update", "no"] }
      let verify = try Verify.parse(args + ["--html", output])
      try verify.run()
    }
  }
}

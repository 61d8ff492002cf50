import CanonicalJSON
import JustPhotoEngine
import EngineIO
import EngineSeam
import Foundation
import Replay

extension ReplayDriver where E.Step.Output == EngineOutput {
  /// The `cue_eval` lines within `windowMs` of `t` that concern `cues` (all cues when empty):
  /// the explanation hook of the differ. `makeEngine` must build engines with
  /// `traceMetrics = true` (`EngineConfiguration.traceMetrics`). The replay stops right after
  /// the window, so this costs at most one partial replay.
  public func cueEvals(_ url: URL, around t: Millis, cues: [String], windowMs: Millis = 500)
    throws(ReplayError)
    -> [TraceRecord]
  {
    var copy = self
    copy.options.stopAfterMs = t + windowMs
    let wanted = Set(cues)
    var output = CollectingOutput { o in
      guard case .cueEval = o.output, abs(o.t - t) <= windowMs else { return false }
      return wanted.isEmpty || Self.mentions(o.record.fields, wanted)
    }
    _ = try copy.replay(url, into: &output)
    return output.records
  }

}

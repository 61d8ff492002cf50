import CanonicalJSON
import JustPhotoEngine
import EngineIO
import JustPhotoIO
import JustPhotoPlugin
import Replay

// The engine returns typed outputs; these tests read them as the trace renders them
// (`Replay`'s `TraceRecord(_:at:)`), at the time of the call that produced them.

extension Effects {
  /// The outputs of a call at `t` as trace records.
  func records(at t: Millis) -> [TraceRecord] { outputs.map { TraceRecord($0, at: t) } }
}

extension EffectRequest {
  /// The request's correlation fields as the trace writes them, without `kind`.
  var fieldsWithoutKind: JSONObject {
    var f = traceFields
    f["kind"] = nil
    return f
  }
}

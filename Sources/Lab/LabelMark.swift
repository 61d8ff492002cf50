import EngineIO
import JustPhotoIO

extension InputEvent {
  /// A `label {cue_id, holds, since?}` event's fields (docs/FORMAT.md): the cue, whether it
  /// should show from `t` on, and when the movement toward that began (`since`, default `t`;
  /// never after `t`). nil for any other event or a label without `cue_id` and `holds`.
  var labelMark: (cue: String, holds: Bool, since: Millis)? {
    guard case .typed(let g) = payload, g.eventKind == .label,
      let cue = g.fields["cue_id"]?.stringValue, let holds = g.fields["holds"]?.boolValue
    else { return nil }
    let since = g.fields["since"]?.int64Value.map { min($0, t) } ?? t
    return (cue, holds, since)
  }
}

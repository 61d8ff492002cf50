import JustPhotoIO
import Verify

extension StructuredLine {
  /// The line read through Just Photo's trace vocabulary (`kind` as its `out`): what the lab's
  /// reports ask of a divergent record (Verify reads lines through a `TraceReading` instead).
  var trace: TraceLine { TraceLine(out: kind, fields: fields) }
}

import JustPhotoEngine
import EngineIO
import Replay
import EngineSeam

/// Just Photo's step is its `Effects`, read in place. An event whose fields do not match its
/// kind's definition (a recording that bypassed `import`) is the step's rejection: the replay
/// stops with bad input at the event's time.
extension Effects: EngineStep {
  public var rejection: String? { refused?.problem }
}

extension Engine: SeamEngine {
  public typealias Vocabulary = JustPhotoVocabulary
}

import CoachEngine
import EngineIO
import Replay
import EngineSeam

/// Just Photo's step is its `Effects`, read in place.
extension Effects: EngineStep {}

extension Engine: SeamEngine {
  public typealias Vocabulary = JustPhotoVocabulary
}

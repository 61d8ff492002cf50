import CoachEngine
import EngineIO
import EngineSeam

/// The calls a replay makes into an engine: EngineSeam's ``SeamEngine`` (start, handle, fire,
/// relaunch, and the engine's vocabulary). `CoachEngine.Engine` conforms with
/// ``JustPhotoVocabulary``; tests drive the replayer with scripted fakes and a second engine.
public typealias ReplayableEngine = SeamEngine

/// Just Photo's step is its `Effects`, read in place.
extension Effects: EngineStep {}

extension Engine: SeamEngine {
  public typealias Vocabulary = JustPhotoVocabulary
}

import EngineSeam

/// The calls a replay makes into an engine: EngineSeam's ``SeamEngine`` (start, handle, fire,
/// relaunch, and the engine's vocabulary). Just Photo conforms in its plug-in
/// (`JustPhotoPlugin`); tests drive the replayer with scripted fakes and a second engine.
public typealias ReplayableEngine = SeamEngine

import CanonicalJSON

/// Milliseconds on the replay clock.
public typealias PixMillis = Int64

/// Engine options (none change behaviour yet; the harness passes them from the header).
public struct PixOptions: Equatable, Sendable {
  /// Deliberate bugs (``PixPlantedFault``); empty in every real run. Only code sets this: no
  /// header, event or store field reaches it.
  public var plantedFaults = PixPlantedFaults()
  /// Default options.
  public init() {}
  /// Default options with planted faults (tests, and the CLI's hidden `--plant-fault`).
  public init(plantedFaults: PixPlantedFaults) { self.plantedFaults = plantedFaults }
}

/// The PixScan view model as a pure state machine: typed inputs and a time in, trace lines,
/// effect requests and the store to persist out. No clock, I/O or randomness; nothing
/// hash-ordered reaches an output. The behaviour and its decisions (D1…D20) are in
/// docs/PIXSCAN.md.
public struct PixScanEngine: Sendable {
  /// The options it was made with.
  public let options: PixOptions

  var running = false
  var permission: PixPermission = .notDetermined
  var permissionPending = false
  var onboarding: PixOnboardingState?
  var store = PixStore()
  var processedSet = Set<String>()
  var queueSet = Set<String>()
  /// The library, sorted (D1); nil until a snapshot arrives after launch.
  var library: [PixAsset]?
  var libraryIndex: [String: Int] = [:]
  /// Library indices of the photos the filter lets through, in order.
  var sequence: [Int] = []
  /// Whether each photo of `sequence` is processed (its id in `processedSet`), by position:
  /// `upcoming` reads this instead of hashing each id it passes.
  var sequenceProcessed: [Bool] = []
  var sequenceIndex: [String: Int] = [:]
  /// Position in `sequence` of the current photo.
  var current: Int?
  var seqProcessed = 0
  var seqDeleted = 0
  var undoStack: [PixUndoEntry] = []
  var pendingOCR: [String: Int] = [:]
  var pendingBatch: (batch: Int64, ids: [String])?
  /// The sheet's selection in selection order; nil: closed.
  var sheet: [String]?
  var shown = PixShown()

  /// An engine before launch.
  public init(options: PixOptions = PixOptions()) { self.options = options }

  /// The store as it is now: what the last step that changed it handed over as `persist`
  /// (every change of the store marks its step's `persist`; a launch takes the store it is
  /// given without one). The replay reads it when it needs the snapshot instead of keeping
  /// each step's, so the arrays are appended to in place.
  public var currentStore: PixStore { store }

  /// The call at t = 0, before any input: nothing is shown until `app_launch`.
  public mutating func start() -> PixStep { PixStep() }

  /// Handles one input at `t`.
  public mutating func handle(_ input: PixInput, at t: PixMillis) -> PixStep {
    var e = PixEmitter()
    if !running {
      if case .appLaunch(let p, let s) = input {
        launch(permission: p, store: s ?? PixStore(), restored: false, &e)
      } else {
        e.ignore(input, .notRunning)
      }
      return finish(&e)
    }
    switch input {
    case .appLaunch: e.ignore(input, .alreadyRunning)
    case .appKill:
      e.emit(.app(state: "killed", permission: nil, onboarded: nil, restored: nil))
      self = PixScanEngine(options: options)
      return PixStep(outputs: e.outputs)
    case .librarySnapshot(let assets): takeLibrary(assets, &e)
    case .permissionTap: permissionTap(&e)
    case .permissionResult(let p): permissionResult(p, &e)
    case .swipe(let d): swipe(d, &e)
    case .undo: undo(&e)
    case .filterMode(let m): filterMode(m, &e)
    case .ocrResult(let photo, let outcome): ocrResult(photo, outcome, at: t, &e)
    case .deleteSheet(let a): sheetAction(a, &e)
    case .deleteResult(let batch, let outcome): deleteResult(batch, outcome, &e)
    case .onboarding(let a): onboardingAction(a, &e)
    }
    return finish(&e)
  }

  /// The `app_launch` after a kill: the engine starts over from `store` alone (decision D20:
  /// the launch's own `store` field, if any, is not used; undo history, library, selection and
  /// pending requests are gone).
  public mutating func relaunch(_ launch: PixInput, restoring store: PixStore, at t: PixMillis) -> PixStep {
    self = PixScanEngine(options: options)
    var e = PixEmitter()
    guard case .appLaunch(let p, _) = launch else {
      e.ignore(launch, .notALaunch)
      return finish(&e)
    }
    self.launch(permission: p, store: store, restored: true, &e)
    return finish(&e)
  }

  mutating func launch(permission p: PixPermission, store s: PixStore, restored: Bool, _ e: inout PixEmitter) {
    running = true
    permission = p
    store = s
    processedSet = Set(s.processed)
    queueSet = Set(s.queue)
    onboarding = s.onboarded ? nil : PixOnboardingState()
    e.emit(.app(state: "launched", permission: p, onboarded: s.onboarded, restored: restored))
  }

  /// Publishes what changed (screen, onboarding step, photo, progress, prefetch) and the store.
  mutating func finish(_ e: inout PixEmitter) -> PixStep {
    if running { publish(&e) }
    var step = PixStep(outputs: e.outputs, effects: e.effects)
    if e.dirty {
      step.outputs.append(.store(PixStoreCounts(store)))
      step.persist = store
    }
    return step
  }

  /// The screen's name: onboarding, permission, permission_denied, loading, main, completion.
  var screenName: PixScreen {
    if onboarding != nil { return .onboarding }
    switch permission {
    case .notDetermined: return .permission
    case .denied: return .permissionDenied
    case .authorized, .limited:
      guard library != nil else { return .loading }
      return current == nil ? .completion : .main
    }
  }

  mutating func publish(_ e: inout PixEmitter) {
    let screen = PixOutput.screen(name: screenName, limited: permission == .limited)
    if shown.screen != screen {
      shown.screen = screen
      e.emit(screen)
    }
    if let ob = onboarding {
      let line = ob.output
      if shown.onboarding != line {
        shown.onboarding = line
        e.emit(line)
      }
    }
    guard onboarding == nil, permission.grantsAccess, let library else { return }
    let id = current.map { library[sequence[$0]].id }
    let photo = PixOutput.photo(id: id, index: current, canUndo: !undoStack.isEmpty)
    if shown.photo != photo {
      let moved = shown.photoAt?.id != id || shown.photoAt?.index != current
      shown.photo = photo
      shown.photoAt = (id, current)
      e.emit(photo)
      if moved, let c = current {
        let window = upcoming(after: c, limit: PixRules.prefetchWindow).map { library[sequence[$0]].id }
        if !window.isEmpty { e.request(.prefetch(window)) }
      }
    }
    let progress = PixProgress(
      processed: seqProcessed, total: sequence.count, kept: seqProcessed - seqDeleted, deleted: seqDeleted, ocr: store.texts.count)
    if shown.progress != progress {
      shown.progress = progress
      e.emit(.progress(progress))
    }
  }
}

/// What was last published, so lines are written only on change.
struct PixShown: Sendable {
  var screen: PixOutput?
  var onboarding: PixOutput?
  var photo: PixOutput?
  var photoAt: (id: String?, index: Int?)?
  var progress: PixProgress?
}

/// One undoable swipe of this session: the photo, whether the swipe put it in the queue, and
/// whether it asked for text recognition.
struct PixUndoEntry: Sendable {
  var photo: String
  var queued: Bool
  var ocr: Bool
}

/// Collects one call's outputs.
struct PixEmitter {
  var outputs: [PixOutput]
  var effects: [PixEffectRequest] = []
  var dirty = false

  /// Room for a step's usual lines (a swipe writes 5–6), so they are not copied as they come.
  init() {
    outputs = []
    outputs.reserveCapacity(8)
  }

  mutating func emit(_ o: PixOutput) { outputs.append(o) }
  mutating func request(_ r: PixEffectRequest) {
    outputs.append(.effect(r))
    effects.append(r)
  }
  mutating func ignore(_ input: PixInput, _ reason: PixIgnoreReason) {
    outputs.append(.ignored(input: input.kind.rawValue, reason: reason))
  }
}

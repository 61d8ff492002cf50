/// Onboarding, permission and the delete-review sheet.
struct PixOnboardingState: Equatable, Sendable {
  enum Step: String, Sendable {
    case welcome, practice, highlights, permission
  }
  var step: Step = .welcome
  var cardsLeft = PixRules.practiceCards
  var icon: PixIcon = .trash

  var output: PixOutput {
    switch step {
    case .welcome, .permission: .onboarding(step: step.rawValue, cardsLeft: nil, icon: nil)
    case .practice: .onboarding(step: step.rawValue, cardsLeft: cardsLeft, icon: nil)
    case .highlights: .onboarding(step: step.rawValue, cardsLeft: nil, icon: icon)
    }
  }
}

extension PixScanEngine {
  /// D13: welcome → practice (3 sample cards; `next` skips) → highlights (trash, then OCR; a
  /// wrong icon is ignored; `next` skips) → permission (only the permission tap goes on).
  mutating func onboardingAction(_ a: PixOnboardingAction, _ e: inout PixEmitter) {
    guard var ob = onboarding else { return e.ignore(.onboarding(a), .notOnboarding) }
    switch (ob.step, a) {
    case (.welcome, .next): ob.step = .practice
    case (.practice, .practiceSwipe):
      ob.cardsLeft -= 1
      if ob.cardsLeft == 0 { ob.step = .highlights }
    case (.practice, .next): ob.step = .highlights
    case (.highlights, .tapIcon(let icon)):
      guard icon == ob.icon else { return e.ignore(.onboarding(a), .wrongIcon) }
      if icon == .trash { ob.icon = .ocr } else { ob.step = .permission }
    case (.highlights, .next): ob.step = .permission
    case (.permission, .next): return e.ignore(.onboarding(a), .needsPermissionTap)
    default: return e.ignore(.onboarding(a), .notThisStep)
    }
    onboarding = ob
  }

  mutating func completeOnboarding(_ e: inout PixEmitter) {
    onboarding = nil
    shown.onboarding = nil
    store.onboarded = true
    e.emit(.onboarding(step: "done", cardsLeft: nil, icon: nil))
    e.dirty = true
  }

  /// D10: one request at a time (a second tap while it is pending is ignored); once the
  /// system answered, the app never asks again (the denied screen points to Settings). At
  /// onboarding's permission step with an answer already known, the tap completes onboarding.
  mutating func permissionTap(_ e: inout PixEmitter) {
    if let ob = onboarding, ob.step != .permission { return e.ignore(.permissionTap, .onboardingStep) }
    if permissionPending { return e.ignore(.permissionTap, .requestPending) }
    guard permission == .notDetermined else {
      if onboarding != nil { return completeOnboarding(&e) }
      return e.ignore(.permissionTap, .alreadyAnswered)
    }
    permissionPending = true
    e.request(.requestPermission)
  }

  mutating func permissionResult(_ p: PixPermission, _ e: inout PixEmitter) {
    guard permissionPending else { return e.ignore(.permissionResult(p), .noPendingRequest) }
    permissionPending = false
    permission = p
    if onboarding != nil { completeOnboarding(&e) }
  }

  var queueBytes: Int64 { bytes(of: store.queue) }

  func bytes(of ids: [String]) -> Int64 {
    guard let library else { return 0 }
    return ids.reduce(0) { $0 + (libraryIndex[$1].map { library[$0].bytes } ?? 0) }
  }

  func sheetLine(_ state: String) -> PixOutput {
    let selected = sheet ?? []
    return .sheet(state: state, items: store.queue.count, bytes: queueBytes, selected: selected.count, selectedBytes: bytes(of: selected))
  }

  /// D19: the sheet opens from the main or completion screen; selection starts empty;
  /// while a batch is pending it can be closed and opened, but selects and deletes are ignored.
  mutating func sheetAction(_ a: PixSheetAction, _ e: inout PixEmitter) {
    let input = PixInput.deleteSheet(a)
    if onboarding != nil { return e.ignore(input, .onboarding) }
    guard permission.grantsAccess, library != nil else { return e.ignore(input, .noLibrary) }
    if case .open = a {
      guard sheet == nil else { return e.ignore(input, .alreadyOpen) }
      sheet = []
      return e.emit(sheetLine("open"))
    }
    guard var selected = sheet else { return e.ignore(input, .sheetClosed) }
    if case .close = a {
      sheet = nil
      return e.emit(.sheet(state: "closed", items: store.queue.count, bytes: queueBytes, selected: 0, selectedBytes: 0))
    }
    if pendingBatch != nil { return e.ignore(input, .deletePending) }
    switch a {
    case .select(let p):
      guard queueSet.contains(p) else { return e.ignore(input, .notQueued) }
      guard !selected.contains(p) else { return e.ignore(input, .alreadySelected) }
      selected.append(p)
    case .deselect(let p):
      guard let i = selected.firstIndex(of: p) else { return e.ignore(input, .notSelected) }
      selected.remove(at: i)
    case .deleteSelected, .deleteAll:
      let ids: [String]
      if case .deleteAll = a {
        ids = store.queue
        guard !ids.isEmpty else { return e.ignore(input, .emptyQueue) }
      } else {
        let chosen = Set(selected)
        ids = store.queue.filter { chosen.contains($0) }
        guard !ids.isEmpty else { return e.ignore(input, .emptySelection) }
      }
      let batch = store.nextBatch
      store.nextBatch += 1
      pendingBatch = (batch, ids)
      e.dirty = true
      e.request(.deleteBatch(batch: batch, ids: ids, bytes: bytes(of: ids)))
      return e.emit(sheetLine("deleting"))
    case .open, .close: break
    }
    sheet = selected
    e.emit(sheetLine("open"))
  }

  /// D8: on ok the ids leave the queue, the processed set and the library, and the undo
  /// history is cleared; on cancel or error nothing changes but a message (the sheet stays
  /// open with its selection, to retry).
  mutating func deleteResult(_ batch: Int64, _ outcome: PixDeleteOutcome, _ e: inout PixEmitter) {
    guard let pb = pendingBatch, pb.batch == batch else {
      return e.ignore(.deleteResult(batch: batch, outcome: outcome), .noPendingRequest)
    }
    pendingBatch = nil
    switch outcome {
    case .ok:
      let gone = Set(pb.ids)
      store.queue.removeAll { gone.contains($0) }
      store.processed.removeAll { gone.contains($0) }
      queueSet.subtract(gone)
      processedSet.subtract(gone)
      undoStack = []
      if var lib = library {
        let keep = currentID
        lib.removeAll { gone.contains($0.id) }
        library = lib
        libraryIndex = [:]
        for (i, a) in lib.enumerated() { libraryIndex[a.id] = i }
        rebuildSequence(keeping: keep)
      }
      e.dirty = true
      e.emit(.queue(op: .deleted, photo: nil, changed: gone.count, count: store.queue.count))
      e.emit(.message(key: .deleted, batch: batch, count: gone.count))
      if sheet != nil {
        sheet!.removeAll { gone.contains($0) }
        if store.queue.isEmpty {
          sheet = nil
          e.emit(.sheet(state: "closed", items: 0, bytes: 0, selected: 0, selectedBytes: 0))
        } else {
          e.emit(sheetLine("open"))
        }
      }
    case .cancelled:
      e.emit(.message(key: .deleteCancelled, batch: batch))
      if sheet != nil { e.emit(sheetLine("open")) }
    case .error(let error):
      e.emit(.message(key: .deleteFailed, batch: batch, error: error))
      if sheet != nil { e.emit(sheetLine("open")) }
    }
  }
}

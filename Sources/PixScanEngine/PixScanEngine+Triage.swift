/// The triage: the library and its sequence, swipes, undo, the filter and text results.
extension PixScanEngine {
  /// D9: ids gone from the library leave the processed set and the queue (text entries stay);
  /// D1: the library is sorted newest first, ties by id.
  mutating func takeLibrary(_ assets: [PixAsset], _ e: inout PixEmitter) {
    guard permission.grantsAccess else { return e.ignore(.librarySnapshot(assets), .noAccess) }
    let keep = currentID
    let sorted = assets.sorted(by: PixAsset.precedes)
    var index: [String: Int] = [:]
    index.reserveCapacity(sorted.count)
    for (i, a) in sorted.enumerated() { index[a.id] = i }
    library = sorted
    libraryIndex = index
    let keptProcessed = store.processed.filter { index[$0] != nil }
    let keptQueue = store.queue.filter { index[$0] != nil }
    let prunedProcessed = store.processed.count - keptProcessed.count
    let prunedQueued = store.queue.count - keptQueue.count
    e.emit(
      .library(
        count: sorted.count, screenshots: sorted.reduce(0) { $0 + ($1.screenshot ? 1 : 0) },
        prunedProcessed: prunedProcessed, prunedQueued: prunedQueued))
    if prunedProcessed > 0 || prunedQueued > 0 {
      store.processed = keptProcessed
      store.queue = keptQueue
      processedSet = Set(keptProcessed)
      queueSet = Set(keptQueue)
      undoStack.removeAll { index[$0.photo] == nil }
      if sheet != nil { sheet!.removeAll { !queueSet.contains($0) } }
      e.dirty = true
    }
    if prunedQueued > 0 {
      e.emit(.queue(op: .pruned, photo: nil, changed: prunedQueued, count: store.queue.count))
      e.emit(.message(key: .queuePruned, count: prunedQueued))
    }
    rebuildSequence(keeping: keep)
  }

  /// The current photo's id.
  var currentID: String? { current.map { library![sequence[$0]].id } }

  /// The sequence for the filter, its counts, and the current photo: `keep` when it is
  /// still there and unprocessed, else the first unprocessed (D7).
  mutating func rebuildSequence(keeping keep: String?) {
    guard let library else { return }
    sequence = []
    sequenceProcessed = []
    sequenceIndex = [:]
    seqProcessed = 0
    seqDeleted = 0
    for (i, a) in library.enumerated() where store.filter == .all || a.screenshot {
      sequenceIndex[a.id] = sequence.count
      sequence.append(i)
      let processed = processedSet.contains(a.id)
      sequenceProcessed.append(processed)
      if processed {
        seqProcessed += 1
        if queueSet.contains(a.id) { seqDeleted += 1 }
      }
    }
    if let keep, let p = sequenceIndex[keep], !processedSet.contains(keep) {
      current = p
    } else {
      current = upcoming(after: nil, limit: 1).first
    }
  }

  /// Whether the photo at `position` of the sequence is processed (`sequenceProcessed`, kept
  /// with `processedSet` by `rebuildSequence`, `swipe` and `undo`; debug builds check it).
  func isProcessed(_ position: Int) -> Bool {
    assert(sequenceProcessed[position] == processedSet.contains(library![sequence[position]].id))
    return sequenceProcessed[position]
  }

  /// Up to `limit` unprocessed positions after `position` in sequence order, wrapping to the
  /// start (D7); from the start when `position` is nil. `position` itself is never listed.
  func upcoming(after position: Int?, limit: Int) -> [Int] {
    var out: [Int] = []
    let n = sequence.count
    guard n > 0 else { return out }
    out.reserveCapacity(Swift.min(limit, n))
    let start = position.map { $0 + 1 } ?? 0
    var i = start
    var steps = 0
    let span = position == nil ? n : n - 1
    while steps < span, out.count < limit {
      if i >= n { i = 0 }
      if !isProcessed(i) { out.append(i) }
      i += 1
      steps += 1
    }
    return out
  }

  /// Whether the main screen takes triage input; nil when it does, else why not.
  func triageBlocked() -> PixIgnoreReason? {
    if onboarding != nil { return .onboarding }
    if !permission.grantsAccess { return .noAccess }
    if library == nil { return .loading }
    if sheet != nil { return .sheetOpen }
    return nil
  }

  mutating func swipe(_ d: PixDirection, _ e: inout PixEmitter) {
    if let why = triageBlocked() { return e.ignore(.swipe(d), why) }
    guard let c = current else { return e.ignore(.swipe(d), .noPhoto) }
    let photo = library![sequence[c]].id
    e.emit(.action(photo: photo, index: c, direction: d))
    processedSet.insert(photo)
    sequenceProcessed[c] = true
    store.processed.append(photo)
    seqProcessed += 1
    var queued = false
    if d.queues, !queueSet.contains(photo) {
      queueSet.insert(photo)
      store.queue.append(photo)
      queued = true
      e.emit(.queue(op: .added, photo: photo, changed: 1, count: store.queue.count))
    }
    if queueSet.contains(photo) { seqDeleted += 1 }
    if d.recognises {
      pendingOCR[photo, default: 0] += 1
      e.request(.ocr(photo: photo))
    }
    undoStack.append(PixUndoEntry(photo: photo, queued: queued, ocr: d.recognises))
    current = upcoming(after: c, limit: 1).first
    e.dirty = true
  }

  /// D3–D6: undo reverts the last swipe of this session completely (queue, text, pending
  /// recognition) and makes its photo current; with nothing to undo it is ignored.
  mutating func undo(_ e: inout PixEmitter) {
    if let why = triageBlocked() { return e.ignore(.undo, why) }
    guard let u = undoStack.popLast() else { return e.ignore(.undo, .nothingToUndo) }
    processedSet.remove(u.photo)
    if let i = store.processed.lastIndex(of: u.photo) { store.processed.remove(at: i) }
    let inSequence = sequenceIndex[u.photo]
    if let p = inSequence {
      sequenceProcessed[p] = false
      seqProcessed -= 1
      if queueSet.contains(u.photo) { seqDeleted -= 1 }
    }
    var queueRemoved = false
    if u.queued, !options.plantedFaults.contains(.undoForgetsQueue), queueSet.remove(u.photo) != nil {
      store.queue.removeAll { $0 == u.photo }
      queueRemoved = true
    }
    var textRemoved = false
    var ocrDropped = false
    if u.ocr {
      if let n = pendingOCR[u.photo], n > 0 {
        pendingOCR[u.photo] = n == 1 ? nil : n - 1
        ocrDropped = true
      } else if let i = store.texts.lastIndex(where: { $0.photo == u.photo }) {
        store.texts.remove(at: i)
        textRemoved = true
      }
    }
    if let p = inSequence, !options.plantedFaults.contains(.undoForgetsPosition) { current = p }
    e.emit(.undo(photo: u.photo, index: inSequence, queueRemoved: queueRemoved, textRemoved: textRemoved, ocrDropped: ocrDropped))
    if queueRemoved { e.emit(.queue(op: .removed, photo: u.photo, changed: 1, count: store.queue.count)) }
    e.dirty = true
  }

  /// D16: a new filter starts at the first unprocessed photo of its sequence and clears the
  /// undo history (D5).
  mutating func filterMode(_ m: PixFilter, _ e: inout PixEmitter) {
    if onboarding != nil { return e.ignore(.filterMode(m), .onboarding) }
    if sheet != nil { return e.ignore(.filterMode(m), .sheetOpen) }
    guard m != store.filter else { return e.ignore(.filterMode(m), .unchanged) }
    store.filter = m
    undoStack = []
    e.emit(.filter(m))
    rebuildSequence(keeping: nil)
    e.dirty = true
  }

  /// D2: a text makes an entry; an empty or blank text, or a failure, makes none and shows a
  /// message. D12: a result nobody asked for (or whose swipe was undone) is ignored.
  mutating func ocrResult(_ photo: String, _ outcome: PixOCROutcome, at t: PixMillis, _ e: inout PixEmitter) {
    guard let n = pendingOCR[photo], n > 0 else { return e.ignore(.ocrResult(photo: photo, outcome: outcome), .noPendingRequest) }
    pendingOCR[photo] = n == 1 ? nil : n - 1
    switch outcome {
    case .text(let s) where !s.unicodeScalars.allSatisfy(\.properties.isWhitespace) || options.plantedFaults.contains(.blankTextKept):
      let entry = PixTextEntry(photo: photo, text: s, t: t)
      store.texts.append(entry)
      e.emit(.text(count: store.texts.count, entry: entry))
      e.dirty = true
    case .text:
      e.emit(.message(key: .ocrNoText, photo: photo))
    case .failed(let error):
      e.emit(.message(key: .ocrFailed, photo: photo, error: error))
    }
  }
}

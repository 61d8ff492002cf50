/// Why an input was not acted on: the `reason` of an `ignored` trace line.
public enum PixIgnoreReason: String, CaseIterable, Sendable {
  /// A launch while the process already runs.
  case alreadyRunning = "already_running"
  /// An event that needs a running process arrived before a launch.
  case notRunning = "not_running"
  /// A relaunch whose first event is not `app_launch`.
  case notALaunch = "not_a_launch"
  /// An onboarding action outside onboarding.
  case notOnboarding = "not_onboarding"
  /// A practice tap on an icon other than the highlighted one.
  case wrongIcon = "wrong_icon"
  /// `next` on the permission step: only the permission tap moves on.
  case needsPermissionTap = "needs_permission_tap"
  /// An onboarding action the current step does not take.
  case notThisStep = "not_this_step"
  /// A permission tap during onboarding before its permission step.
  case onboardingStep = "onboarding_step"
  /// A second permission tap while the first request is open.
  case requestPending = "request_pending"
  /// A permission tap after the system already answered.
  case alreadyAnswered = "already_answered"
  /// A result no request is waiting for.
  case noPendingRequest = "no_pending_request"
  /// Triage or sheet input during onboarding.
  case onboarding
  /// Sheet input without a readable library.
  case noLibrary = "no_library"
  /// Opening the sheet while it is open.
  case alreadyOpen = "already_open"
  /// A sheet action while the sheet is closed.
  case sheetClosed = "sheet_closed"
  /// A sheet action while a delete batch is out.
  case deletePending = "delete_pending"
  /// Selecting a photo that is not in the queue.
  case notQueued = "not_queued"
  /// Selecting a photo twice.
  case alreadySelected = "already_selected"
  /// Deselecting a photo that is not selected.
  case notSelected = "not_selected"
  /// Deleting all of an empty queue.
  case emptyQueue = "empty_queue"
  /// Deleting an empty selection.
  case emptySelection = "empty_selection"
  /// Library or triage input without photo access.
  case noAccess = "no_access"
  /// Triage input before the first library snapshot.
  case loading
  /// Triage input while the sheet is open.
  case sheetOpen = "sheet_open"
  /// A swipe with no current photo (the run is complete).
  case noPhoto = "no_photo"
  /// An undo with no swipe left to undo.
  case nothingToUndo = "nothing_to_undo"
  /// A filter change to the filter already on.
  case unchanged
}

/// The key of a `message` trace line (its English text comes from ``PixOutput/english(_:count:)``).
public enum PixMessageKey: String, CaseIterable, Sendable {
  /// Text recognition failed.
  case ocrFailed = "ocr_failed"
  /// Text recognition found no text.
  case ocrNoText = "ocr_no_text"
  /// The system's delete dialog was cancelled.
  case deleteCancelled = "delete_cancelled"
  /// The delete failed.
  case deleteFailed = "delete_failed"
  /// A batch was deleted.
  case deleted
  /// Queued photos left the library and the queue.
  case queuePruned = "queue_pruned"
}

/// The screen the app shows: the `name` of a `screen` trace line.
public enum PixScreen: String, CaseIterable, Sendable {
  /// The onboarding cards.
  case onboarding
  /// Asking for photo access.
  case permission
  /// Access denied: only Settings can help.
  case permissionDenied = "permission_denied"
  /// Waiting for the first library snapshot.
  case loading
  /// Triage.
  case main
  /// Every photo of the filter is processed.
  case completion
}

/// What happened to the delete queue: the `op` of a `queue` trace line.
public enum PixQueueOp: String, CaseIterable, Sendable {
  /// A swipe queued a photo.
  case added
  /// An undo took a photo out.
  case removed
  /// A delete batch removed photos.
  case deleted
  /// Photos that left the library left the queue.
  case pruned
}

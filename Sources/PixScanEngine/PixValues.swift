import CanonicalJSON

/// The photo-library authorization the system reports.
public enum PixPermission: String, CaseIterable, Sendable {
  /// Never asked: the app may ask once.
  case notDetermined = "not_determined"
  /// The user refused: only Settings can change it.
  case denied
  /// The user shared a selection of photos: the library snapshot holds only those.
  case limited
  /// The whole library is readable.
  case authorized

  /// Whether the library may be read (authorized or limited).
  public var grantsAccess: Bool { self == .authorized || self == .limited }
}

/// A swipe's direction; each is one action.
public enum PixDirection: String, CaseIterable, Sendable {
  /// Keep.
  case right
  /// Delete: the photo joins the delete queue.
  case left
  /// Recognise the text, then keep.
  case down
  /// Recognise the text, then delete.
  case up

  /// The action's name in trace lines: keep, delete, ocr_keep, ocr_delete.
  public var action: String {
    switch self {
    case .right: "keep"
    case .left: "delete"
    case .down: "ocr_keep"
    case .up: "ocr_delete"
    }
  }
  /// Whether the swipe puts the photo in the delete queue.
  public var queues: Bool { self == .left || self == .up }
  /// Whether the swipe asks for text recognition.
  public var recognises: Bool { self == .down || self == .up }
}

/// Which photos the triage walks through.
public enum PixFilter: String, CaseIterable, Sendable {
  /// Every photo of the library.
  case all
  /// Screenshots only.
  case screenshots
}

/// One asset of a library snapshot.
public struct PixAsset: Equatable, Sendable {
  /// The library's identifier of the asset.
  public var id: String
  /// Creation date, ms since 1970-01-01 UTC.
  public var created: Int64
  /// Whether the system flags the asset as a screenshot.
  public var screenshot: Bool
  /// The asset's size in bytes.
  public var bytes: Int64

  /// An asset.
  public init(id: String, created: Int64, screenshot: Bool, bytes: Int64) {
    self.id = id
    self.created = created
    self.screenshot = screenshot
    self.bytes = bytes
  }

  /// Newest first; equal dates by id, ascending byte order (decision D1).
  public static func precedes(_ a: PixAsset, _ b: PixAsset) -> Bool {
    if a.created != b.created { return a.created > b.created }
    return a.id.utf8.lexicographicallyPrecedes(b.id.utf8)
  }

  /// `{id, created, screenshot, bytes}`.
  public func json() -> JSONObject {
    ["id": .string(id), "created": .number(Double(created)), "screenshot": .bool(screenshot), "bytes": .number(Double(bytes))]
  }
}

/// One recognised text: the photo it was read from, the text, and when (ms, replay clock).
public struct PixTextEntry: Equatable, Sendable {
  /// The photo the text was read from.
  public var photo: String
  /// The recognised text (never empty: an empty recognition makes no entry, decision D2).
  public var text: String
  /// When the result arrived, ms on the replay clock.
  public var t: Int64

  /// An entry.
  public init(photo: String, text: String, t: Int64) {
    self.photo = photo
    self.text = text
    self.t = t
  }
}

/// What a text recognition returned.
public enum PixOCROutcome: Equatable, Sendable {
  /// Recognised text (possibly empty or blank: then no entry is made).
  case text(String)
  /// The recognition failed; the platform's reason when it gave one.
  case failed(error: String?)
}

/// What the batch delete returned.
public enum PixDeleteOutcome: Equatable, Sendable {
  /// The photos are gone.
  case ok
  /// The user said no in the system's confirmation.
  case cancelled
  /// The library refused; the platform's reason when it gave one.
  case error(String?)

  /// Every `outcome` an event can carry.
  public static let names = ["ok", "cancelled", "error"]
}

/// An action on the delete-review sheet.
public enum PixSheetAction: Equatable, Sendable {
  /// Open the sheet (from the main or completion screen).
  case open
  /// Close it.
  case close
  /// Select a queued photo for deletion.
  case select(String)
  /// Deselect it.
  case deselect(String)
  /// Delete the selected photos (one batch).
  case deleteSelected
  /// Delete the whole queue (one batch).
  case deleteAll

  /// The action's name in events and trace lines.
  public var name: String {
    switch self {
    case .open: "open"
    case .close: "close"
    case .select: "select"
    case .deselect: "deselect"
    case .deleteSelected: "delete_selected"
    case .deleteAll: "delete_all"
    }
  }
  /// Every action name.
  public static let names = ["open", "close", "select", "deselect", "delete_selected", "delete_all"]
}

/// The icons the onboarding's highlights step asks the user to tap, in order.
public enum PixIcon: String, CaseIterable, Sendable {
  /// The delete-queue icon (first).
  case trash
  /// The text-recognition icon (second).
  case ocr
}

/// A user action during onboarding.
public enum PixOnboardingAction: Equatable, Sendable {
  /// The step's continue button (skips the rest of the step).
  case next
  /// A swipe on a practice card.
  case practiceSwipe(PixDirection)
  /// A tap on a highlighted icon.
  case tapIcon(PixIcon)

  /// The action's name in events.
  public var name: String {
    switch self {
    case .next: "next"
    case .practiceSwipe: "practice_swipe"
    case .tapIcon: "tap_icon"
    }
  }
  /// Every action name.
  public static let names = ["next", "practice_swipe", "tap_icon"]
}

/// One A.13 diagnostics line (ENGINE §6.1); payload values are strings.
public struct DiagnosticLine: Equatable, Sendable {
  public var tsMs: Int64
  public var sessionId: String
  public var event: String
  public var scene: String
  public var payload: [(key: String, value: String)]
  public init(tsMs: Int64, sessionId: String, event: String, scene: String, payload: [(key: String, value: String)]) {
    self.tsMs = tsMs
    self.sessionId = sessionId
    self.event = event
    self.scene = scene
    self.payload = payload
  }
  public static func == (a: DiagnosticLine, b: DiagnosticLine) -> Bool {
    a.tsMs == b.tsMs && a.sessionId == b.sessionId && a.event == b.event && a.scene == b.scene
      && a.payload.map(\.key) == b.payload.map(\.key) && a.payload.map(\.value) == b.payload.map(\.value)
  }
}

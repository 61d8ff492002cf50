import EngineIO

/// The channels of a `.jprec` file, one per event family (DESIGN §3). Raw values are stored.
package enum Channel: String, CaseIterable, Sendable {
  case landmarks, pixels, sensors, device, ui, effects, label
}

extension EventKind {
  /// The `.jprec` channel that stores this kind (DESIGN §3), as its `EventDefinition` states.
  package var channel: Channel {
    switch eventChannel {
    case .landmarks: .landmarks
    case .pixels: .pixels
    case .sensors: .sensors
    case .device: .device
    case .ui: .ui
    case .effects: .effects
    case .label: .label
    }
  }
}

import EngineIO

/// The channels of a `.jprec` file, one per event family (DESIGN §3). Raw values are stored.
package enum Channel: String, CaseIterable, Sendable {
  case landmarks, pixels, sensors, device, ui, effects, label
}

import EngineIO

/// The channels of a `.jprec` file, one per event family (DESIGN §3). Raw values are stored.
package enum Channel: String, CaseIterable, Sendable {
  case landmarks, pixels, sensors, device, ui, effects, label
}

extension EventKind {
  /// The `.jprec` channel that stores this kind (DESIGN §3), as its vocabulary states it.
  package var channel: Channel { KindTable.channels[KindTable.index[self]!] }
}

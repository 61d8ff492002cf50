import CanonicalJSON

/// One leaf-level difference between two PoseSpec documents: a JSON path and the value on
/// each side (nil where the member or array element does not exist on that side).
///
/// Paths name array elements that carry a string `id` by that id (`cues[FRAME_MOVE_LEFT]`),
/// other array elements by index, so an edit means the same thing whatever the cue order.
package struct SpecEdit: Hashable, Sendable, CustomStringConvertible {
  /// One step of a path into a JSON document.
  package enum Step: Hashable, Sendable {
    case key(String)
    case id(String)
    case index(Int)
  }

  package var path: [Step]
  package var old: JSONValue?
  package var new: JSONValue?

  package init(path: [Step], old: JSONValue?, new: JSONValue?) {
    self.path = path
    self.old = old
    self.new = new
  }

  /// `cues[FRAME_MOVE_LEFT].antiJitter.persistFrames`.
  package var pathText: String {
    var s = ""
    for step in path {
      switch step {
      case .key(let k): s += s.isEmpty ? k : ".\(k)"
      case .id(let id): s += "[\(id)]"
      case .index(let i): s += "[\(i)]"
      }
    }
    return s.isEmpty ? "$" : s
  }

  /// `cues[FRAME_MOVE_LEFT].antiJitter.persistFrames 4 → 5` (absent sides read "(absent)").
  package var description: String { "\(pathText) \(Self.short(old)) → \(Self.short(new))" }

  static func short(_ v: JSONValue?) -> String {
    guard let v else { return "(absent)" }
    let text = JSONWriter.write(v, sortKeys: false, numbers: .shortest)
    return text.count <= SpecEditLimits.valueTextMax ? text : String(text.prefix(SpecEditLimits.valueTextMax)) + "…"
  }
}

/// Bounds of the spec differ.
package enum SpecEditLimits {
  /// Characters of a value shown in an edit's description before it is cut with "…".
  package static let valueTextMax = 60
  /// Nesting depth the differ follows; deeper differences are reported as one edit.
  package static let depthMax = 64
}

/// Leaf-level differences between two JSON documents, and applying any subset of them.
package enum SpecDiff {
  /// Every leaf where `old` and `new` differ, in document order (old's member order, then
  /// members only `new` has). No edit's path is a prefix of another's, so any subset applies.
  package static func edits(from old: JSONValue, to new: JSONValue) -> [SpecEdit] {
    var out: [SpecEdit] = []
    diff(old, new, path: [], into: &out)
    return out
  }

  static func diff(_ a: JSONValue, _ b: JSONValue, path: [SpecEdit.Step], into out: inout [SpecEdit]) {
    if a == b { return }
    guard path.count < SpecEditLimits.depthMax else {
      out.append(SpecEdit(path: path, old: a, new: b))
      return
    }
    switch (a, b) {
    case (.object(let x), .object(let y)):
      for m in x.members {
        if let other = y[m.key] {
          diff(m.value, other, path: path + [.key(m.key)], into: &out)
        } else {
          out.append(SpecEdit(path: path + [.key(m.key)], old: m.value, new: nil))
        }
      }
      for m in y.members where x[m.key] == nil {
        out.append(SpecEdit(path: path + [.key(m.key)], old: nil, new: m.value))
      }
    case (.array(let x), .array(let y)):
      if let xs = keyedByID(x), let ys = keyedByID(y) {
        for (id, v) in xs {
          if let other = ys.first(where: { $0.id == id }) {
            diff(v, other.value, path: path + [.id(id)], into: &out)
          } else {
            out.append(SpecEdit(path: path + [.id(id)], old: v, new: nil))
          }
        }
        for (id, v) in ys where !xs.contains(where: { $0.id == id }) {
          out.append(SpecEdit(path: path + [.id(id)], old: nil, new: v))
        }
      } else if x.count == y.count {
        for i in x.indices { diff(x[i], y[i], path: path + [.index(i)], into: &out) }
      } else {
        out.append(SpecEdit(path: path, old: a, new: b))
      }
    default:
      out.append(SpecEdit(path: path, old: a, new: b))
    }
  }

  /// The elements with their ids when every element is an object with a unique string `id`.
  static func keyedByID(_ items: [JSONValue]) -> [(id: String, value: JSONValue)]? {
    guard !items.isEmpty else { return nil }
    var seen = Set<String>()
    var out: [(id: String, value: JSONValue)] = []
    for item in items {
      guard let id = item["id"]?.stringValue, seen.insert(id).inserted else { return nil }
      out.append((id, item))
    }
    return out
  }

  /// `base` with `edits` applied (each sets its path to its `new` side, or removes it).
  package static func apply(_ edits: [SpecEdit], to base: JSONValue) throws(SpecEditError) -> JSONValue {
    var doc = base
    for e in edits { doc = try set(e.new, at: e.path[...], in: doc, edit: e) }
    return doc
  }

  static func set(_ value: JSONValue?, at path: ArraySlice<SpecEdit.Step>, in node: JSONValue, edit: SpecEdit)
    throws(SpecEditError) -> JSONValue
  {
    guard let step = path.first else {
      guard let value else { throw SpecEditError(edit: edit, message: "cannot remove the whole document") }
      return value
    }
    let rest = path.dropFirst()
    switch (step, node) {
    case (.key(let k), .object(var o)):
      if rest.isEmpty {
        o[k] = value
      } else {
        guard let child = o[k] else { throw SpecEditError(edit: edit, message: "no member '\(k)'") }
        o[k] = try set(value, at: rest, in: child, edit: edit)
      }
      return .object(o)
    case (.id(let id), .array(var a)):
      let i = a.firstIndex { $0["id"]?.stringValue == id }
      if rest.isEmpty {
        switch (i, value) {
        case (let i?, let v?): a[i] = v
        case (let i?, nil): a.remove(at: i)
        case (nil, let v?): a.append(v)
        case (nil, nil): break
        }
      } else {
        guard let i else { throw SpecEditError(edit: edit, message: "no element with id '\(id)'") }
        a[i] = try set(value, at: rest, in: a[i], edit: edit)
      }
      return .array(a)
    case (.index(let i), .array(var a)):
      guard a.indices.contains(i) else { throw SpecEditError(edit: edit, message: "no element [\(i)]") }
      guard !rest.isEmpty else {
        guard let value else { throw SpecEditError(edit: edit, message: "cannot remove element [\(i)]") }
        a[i] = value
        return .array(a)
      }
      a[i] = try set(value, at: rest, in: a[i], edit: edit)
      return .array(a)
    default:
      throw SpecEditError(edit: edit, message: "the document has a \(node.typeName) where the path expects otherwise")
    }
  }
}

/// An edit that does not fit the document it is applied to.
package struct SpecEditError: Error, CustomStringConvertible, Sendable {
  package var edit: SpecEdit
  package var message: String
  package var description: String { "\(edit.pathText): \(message)" }
}

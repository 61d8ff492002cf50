import Foundation
import Recording

/// A minimal SVG writer: shapes as elements, numbers with at most one decimal, every text
/// escaped for XML.
struct SVGBuilder {
  private(set) var text = ""

  mutating func open(width: Double, height: Double) {
    text += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    text +=
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(n(width))\" height=\"\(n(height))\" viewBox=\"0 0 \(n(width)) \(n(height))\" font-family=\"Helvetica, Arial, sans-serif\">\n"
    text += "<rect x=\"0\" y=\"0\" width=\"\(n(width))\" height=\"\(n(height))\" fill=\"#ffffff\"/>\n"
  }

  mutating func close() { text += "</svg>\n" }

  mutating func rect(
    x: Double, y: Double, w: Double, h: Double, fill: String, stroke: String? = nil, opacity: Double? = nil,
    title: String? = nil
  ) {
    var attrs = "x=\"\(n(x))\" y=\"\(n(y))\" width=\"\(n(w))\" height=\"\(n(h))\" fill=\"\(fill)\""
    if let stroke { attrs += " stroke=\"\(stroke)\"" }
    if let opacity { attrs += " fill-opacity=\"\(opacity)\"" }
    element("rect", attrs, title: title)
  }

  mutating func line(
    x1: Double, y1: Double, x2: Double, y2: Double, stroke: String, width: Double, dash: String? = nil,
    opacity: Double? = nil, title: String? = nil
  ) {
    var attrs =
      "x1=\"\(n(x1))\" y1=\"\(n(y1))\" x2=\"\(n(x2))\" y2=\"\(n(y2))\" stroke=\"\(stroke)\" stroke-width=\"\(n(width))\""
    if let dash { attrs += " stroke-dasharray=\"\(dash)\"" }
    if let opacity { attrs += " stroke-opacity=\"\(n(opacity))\"" }
    element("line", attrs, title: title)
  }

  mutating func polyline(_ points: [(Double, Double)], stroke: String) {
    let list = points.map { "\(n($0.0)),\(n($0.1))" }.joined(separator: " ")
    element("polyline", "points=\"\(list)\" fill=\"none\" stroke=\"\(stroke)\" stroke-width=\"1.3\"", title: nil)
  }

  mutating func triangle(x: Double, y: Double, size: Double, fill: String, title: String) {
    let h = size / 2
    let pts = "\(n(x - h)),\(n(y + size)) \(n(x + h)),\(n(y + size)) \(n(x)),\(n(y))"
    element("polygon", "points=\"\(pts)\" fill=\"\(fill)\"", title: title)
  }

  mutating func diamond(x: Double, y: Double, size: Double, fill: String, title: String) {
    let h = size / 2
    let pts = "\(n(x)),\(n(y)) \(n(x + h)),\(n(y + h)) \(n(x)),\(n(y + size)) \(n(x - h)),\(n(y + h))"
    element("polygon", "points=\"\(pts)\" fill=\"\(fill)\" fill-opacity=\"0.8\"", title: title)
  }

  mutating func text(x: Double, y: Double, _ content: String, size: Double, weight: String? = nil, fill: String? = nil) {
    var attrs = "x=\"\(n(x))\" y=\"\(n(y))\" font-size=\"\(n(size))\""
    if let weight { attrs += " font-weight=\"\(weight)\"" }
    if let fill { attrs += " fill=\"\(fill)\"" }
    text += "<text \(attrs)>\(Self.escape(content))</text>\n"
  }

  private mutating func element(_ name: String, _ attrs: String, title: String?) {
    if let title {
      text += "<\(name) \(attrs)><title>\(Self.escape(title))</title></\(name)>\n"
    } else {
      text += "<\(name) \(attrs)/>\n"
    }
  }

  /// One decimal, no trailing ".0", never "-0".
  private func n(_ v: Double) -> String {
    guard v.isFinite else { return "0" }
    let r = (v * 10).rounded() / 10
    if r == r.rounded() { return String(Int64(r)) }
    return String(format: "%.1f", r)
  }

  /// XML text and attribute escaping (`XMLText`, the one XML escaper).
  static func escape(_ s: String) -> String { XMLText.escape(s) }
}

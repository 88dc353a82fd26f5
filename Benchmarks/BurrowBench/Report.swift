import BurrowStore

/// One workload's result: Burrow and SQLite side by side.
struct Measurement {
    enum Better {
        /// A rate (ops/s, rows/s): speedup = burrow / sqlite.
        case higher
        /// A time (µs): speedup = sqlite / burrow.
        case lower
    }

    /// An extra JSON field, e.g. "burrow_syncs_per_commit".
    struct Extra {
        var key: String
        var value: Double
        var decimals: Int
    }

    var group: String
    var workload: String
    /// The row's name in the table (defaults to the workload).
    var label: String
    var unit: String
    var burrow: Double
    var sqlite: Double
    var better: Better
    var extras: [Extra] = []
    /// Shown in the table's last column only.
    var note: String = ""
    /// False for rows that only illustrate another one in the table (no JSON line).
    var inJSON = true

    init(
        group: String, workload: String, label: String? = nil, unit: String,
        burrow: Double, sqlite: Double, better: Better
    ) {
        self.group = group
        self.workload = workload
        self.label = label ?? workload
        self.unit = unit
        self.burrow = burrow
        self.sqlite = sqlite
        self.better = better
    }

    /// A workload SQLite has no counterpart of (`sqlite` is NaN): the table shows "n/a", the
    /// JSON line null.
    var burrowOnly: Bool { sqlite.isNaN }

    /// Above 1 when Burrow is ahead.
    var speedup: Double {
        switch better {
        case .higher: burrow / sqlite
        case .lower: sqlite / burrow
        }
    }
}

/// Prints results: a table for people, then one JSON object per line for tools.
enum Report {
    static func table(_ measurements: [Measurement]) -> String {
        let header = ["group", "workload", "unit", "burrow", "sqlite", "speedup", "notes"]
        var rows = [header]
        for m in measurements {
            rows.append([
                m.group, m.label, m.unit, Format.human(m.burrow), m.burrowOnly ? "n/a" : Format.human(m.sqlite),
                m.burrowOnly ? "n/a" : Format.fixed(m.speedup, 2) + "x", m.note,
            ])
        }
        let numeric: Set<Int> = [3, 4, 5]
        var widths = [Int](repeating: 0, count: header.count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        func line(_ row: [String]) -> String {
            var out = ""
            for (i, cell) in row.enumerated() {
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                let last = i == row.count - 1
                out += numeric.contains(i) ? pad + cell : (last ? cell : cell + pad)
                if !last { out += "  " }
            }
            return out
        }
        var text = line(rows[0]) + "\n"
        text += line(widths.map { String(repeating: "-", count: $0) }) + "\n"
        for row in rows.dropFirst() { text += line(row) + "\n" }
        return text
    }

    /// `{"group":"storage","workload":"bulk_insert","unit":"ops/s","burrow":123456.7,"sqlite":98765.4,"speedup":1.25}`
    /// followed by any extra fields.
    static func json(_ m: Measurement) -> String {
        var fields = [
            "\"group\":\(Format.jsonString(m.group))",
            "\"workload\":\(Format.jsonString(m.workload))",
            "\"unit\":\(Format.jsonString(m.unit))",
            "\"burrow\":\(Format.jsonNumber(m.burrow, 1))",
            "\"sqlite\":\(Format.jsonNumber(m.sqlite, 1))",
            "\"speedup\":\(Format.jsonNumber(m.speedup, 2))",
        ]
        for extra in m.extras {
            fields.append("\(Format.jsonString(extra.key)):\(Format.jsonNumber(extra.value, extra.decimals))")
        }
        return "{" + fields.joined(separator: ",") + "}"
    }
}

/// Number formatting without Foundation.
enum Format {
    /// `x` rounded to `decimals` places, e.g. fixed(1.256, 2) == "1.26".
    static func fixed(_ x: Double, _ decimals: Int) -> String {
        guard x.isFinite else { return x.isNaN ? "nan" : (x < 0 ? "-inf" : "inf") }
        var scale: Int64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int64((abs(x) * Double(scale)).rounded())
        let whole = scaled / scale
        var text = (x < 0 && scaled != 0 ? "-" : "") + String(whole)
        if decimals > 0 {
            let fraction = String(scaled % scale)
            text += "." + String(repeating: "0", count: decimals - fraction.count) + fraction
        }
        return text
    }

    static func jsonNumber(_ x: Double, _ decimals: Int) -> String {
        x.isFinite ? fixed(x, decimals) : "null"
    }

    static func jsonString(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// For the table: thousands separators above 1,000, a decimal or two below.
    static func human(_ x: Double) -> String {
        guard x.isFinite else { return fixed(x, 0) }
        if abs(x) >= 1000 { return grouped(fixed(x, 0)) }
        if abs(x) >= 10 { return fixed(x, 1) }
        return fixed(x, 2)
    }

    static func bytes(_ n: Int) -> String {
        let units = ["B", "KiB", "MiB", "GiB"]
        var value = Double(n)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return fixed(value, unit == 0 ? 0 : 1) + " " + units[unit]
    }

    private static func grouped(_ digits: String) -> String {
        let negative = digits.hasPrefix("-")
        let body = Array(negative ? digits.dropFirst() : Substring(digits))
        var out = ""
        for (i, c) in body.enumerated() {
            if i > 0 && (body.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return (negative ? "-" : "") + out
    }
}

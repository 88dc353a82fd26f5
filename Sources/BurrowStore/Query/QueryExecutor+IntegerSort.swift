/// Sorting by one integer column, the commonest sort (`sorted(byKeyPath: "age")`): a radix
/// sort, linear in the number of objects, over only the bytes in which the values differ
/// (one pass for small ranges such as ages).
extension QueryExecutor {
    /// The positions of `column` in sorted order, stably (equal values keep their order):
    /// ascending with nulls first, or descending with nulls last, as sorting query values does.
    package static func stableOrder(_ column: [Int64?], ascending: Bool) -> [Int] {
        var nulls: [Int] = []
        var positions: [Int] = []
        var values: [UInt64] = []
        positions.reserveCapacity(column.count)
        values.reserveCapacity(column.count)
        for (position, value) in column.enumerated() {
            guard let value else {
                nulls.append(position)
                continue
            }
            // Flipping the sign bit orders integers as unsigned; complementing reverses that.
            let unsigned = UInt64(bitPattern: value) ^ (1 << 63)
            positions.append(position)
            values.append(ascending ? unsigned : ~unsigned)
        }
        // Without nulls, the values' positions are the column's own.
        guard !nulls.isEmpty else { return radixOrder(values) }
        let sorted = radixOrder(values).map { positions[$0] }
        return ascending ? nulls + sorted : sorted + nulls
    }

    /// The positions of `values` in ascending order, stably: a least-significant-byte-first
    /// radix sort of each value's distance from the smallest, skipping the high bytes in
    /// which every distance is zero.
    package static func radixOrder(_ values: [UInt64]) -> [Int] {
        guard let low = values.min(), let high = values.max() else { return [] }
        let range = high - low
        var order = Array(values.indices)
        var scratch = order
        var shift: UInt64 = 0
        var counts = [Int](repeating: 0, count: 257)
        values.withUnsafeBufferPointer { values in
            while shift < 64, range >> shift != 0 {
                for i in counts.indices { counts[i] = 0 }
                for i in order { counts[Int(truncatingIfNeeded: (values[i] &- low) >> shift & 0xFF) + 1] += 1 }
                for bucket in 1..<257 { counts[bucket] += counts[bucket - 1] }
                for i in order {
                    let bucket = Int(truncatingIfNeeded: (values[i] &- low) >> shift & 0xFF)
                    scratch[counts[bucket]] = i
                    counts[bucket] += 1
                }
                swap(&order, &scratch)
                shift += 8
            }
        }
        return order
    }
}

import BurrowStore
import BurrowTestSupport
import BurrowTestTraits
import Foundation
import Testing

@Suite("Decimal128", .temporaryDirectory)
struct Decimal128Tests {
    /// Parses `text`, failing the test (not trapping) if it does not parse.
    func decimal(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Decimal128 {
        do {
            return try Decimal128.parseOrExplain(text).get()
        } catch {
            Issue.record("\"\(text)\" did not parse: \(error)", sourceLocation: sourceLocation)
            return .nan
        }
    }

    /// The bits, as one comparable value.
    func bits(_ value: Decimal128) -> [UInt64] { [value.bidBits.high, value.bidBits.low] }

    // MARK: - Encoding

    @Test("the BID encoding matches the one MongoDB and realm-core store")
    func bidEncoding() {
        // (string, high, low), from the BSON Decimal128 specification's test corpus.
        let cases: [(String, UInt64, UInt64)] = [
            ("0", 0x3040_0000_0000_0000, 0),
            ("-0", 0xB040_0000_0000_0000, 0),
            ("1", 0x3040_0000_0000_0000, 1),
            ("-1", 0xB040_0000_0000_0000, 1),
            ("0.1", 0x303E_0000_0000_0000, 1),
            ("0.001234", 0x3034_0000_0000_0000, 0x4D2),
            ("1E+3", 0x3046_0000_0000_0000, 1),
            ("123456789012", 0x3040_0000_0000_0000, 0x1C_BE99_1A14),
            ("1E-6176", 0, 1),
            ("0E-6176", 0, 0),
            ("9.999999999999999999999999999999999E+6144", 0x5FFF_ED09_BEAD_87C0, 0x378D_8E63_FFFF_FFFF),
            ("NaN", 0x7C00_0000_0000_0000, 0),
            ("Inf", 0x7800_0000_0000_0000, 0),
            ("-Inf", 0xF800_0000_0000_0000, 0),
        ]
        for (text, high, low) in cases {
            let value = decimal(text)
            #expect(bits(value) == [high, low], "\(text)")
            #expect(Decimal128(bidBits: (low: low, high: high)).stringValue == text)
        }
        #expect(bits(Decimal128()) == [0x3040_0000_0000_0000, 0])
        #expect(bits(.max) == [0x5FFF_ED09_BEAD_87C0, 0x378D_8E63_FFFF_FFFF])
        #expect(bits(.min) == [0xDFFF_ED09_BEAD_87C0, 0x378D_8E63_FFFF_FFFF])
    }

    @Test("non-canonical encodings read as zero, as IEEE 754 specifies")
    func nonCanonical() {
        // Coefficient 10^34 (one too many digits) at exponent 0.
        let tooManyDigits = Decimal128(bidBits: (low: 0x378D_8E64_0000_0000, high: 0x3041_ED09_BEAD_87C0))
        // The "11" combination form: coefficient ≥ 2^113, exponent 0.
        let largeForm = Decimal128(bidBits: (low: 0, high: 0x6000_0000_0000_0000 | UInt64(6176) << 47))
        for value in [tooManyDigits, largeForm] {
            #expect(value == 0)
            #expect(value.isZero)
            #expect(value.stringValue == "0")
            #expect(value.hashValue == Decimal128(0).hashValue)
        }
    }

    // MARK: - Strings

    @Test("parsing and printing: the canonical form, and every accepted spelling")
    func parseAndPrint() {
        let cases: [(String, String)] = [
            ("0", "0"), ("-0", "-0"), ("+0", "0"), ("0.00", "0.00"), ("-0.00", "-0.00"), ("0E+3", "0E+3"), ("0e-7", "0E-7"),
            ("1", "1"), ("+1", "1"), ("-1", "-1"), ("1.5", "1.5"), ("1.50", "1.50"), ("-1.5", "-1.5"), ("00012", "12"),
            ("0012.3400", "12.3400"), (".5", "0.5"), ("5.", "5"), ("100", "100"), ("1E2", "1E+2"), ("1e+2", "1E+2"),
            ("1E+40", "1E+40"), ("1.5E+3", "1.5E+3"), ("15E2", "1.5E+3"), ("123.456e-2", "1.23456"),
            ("0.000001", "0.000001"), ("0.0000001", "1E-7"), ("0.00000123", "0.00000123"), ("0.000000123", "1.23E-7"),
            ("1234567", "1234567"), ("1234567E-10", "0.0001234567"), ("1234567E-13", "1.234567E-7"),
            ("-7.50E-1", "-0.750"), ("1E-00", "1"), ("1E+0007", "1E+7"),
            ("1234567890123456789012345678901234", "1234567890123456789012345678901234"),
            ("NaN", "NaN"), ("nan", "NaN"), ("-NaN", "NaN"), ("sNaN", "NaN"), ("Inf", "Inf"), ("inf", "Inf"), ("+Infinity", "Inf"),
            ("-infinity", "-Inf"), ("-INF", "-Inf"),
        ]
        for (text, expected) in cases {
            #expect(decimal(text).stringValue == expected, "\(text)")
            #expect(decimal(text).description == expected, "\(text)")
            // The printed form reads back to the identical encoding.
            let value = decimal(text)
            if !value.isNaN { #expect(bits(decimal(value.stringValue)) == bits(value), "\(text)") }
        }
    }

    @Test("more than 34 digits round half to even; exponents out of range clamp, round to zero or overflow")
    func parseRounding() {
        let cases: [(String, String)] = [
            // 34 digits kept; the 35th onwards decide.
            ("12345678901234567890123456789012345678", "1.234567890123456789012345678901235E+37"),
            ("1234567890123456789012345678901234.5", "1234567890123456789012345678901234"),
            ("1234567890123456789012345678901235.5", "1234567890123456789012345678901236"),
            ("1234567890123456789012345678901234.50001", "1234567890123456789012345678901235"),
            ("1234567890123456789012345678901234.49999", "1234567890123456789012345678901234"),
            ("99999999999999999999999999999999995", "1.000000000000000000000000000000000E+35"),
            (
                "0.000000000000000000000000000000000000012345678901234567890123456789012345",
                "1.234567890123456789012345678901234E-38"
            ),
            // Exponent range: padding brings 1E+6144 in exactly; 1E+6145 overflows.
            ("1E+6111", "1E+6111"), ("1E+6144", "1.000000000000000000000000000000000E+6144"), ("1E+6145", "Inf"),
            ("-1E+6145", "-Inf"), ("1E+999999999999999999999999", "Inf"), ("0E+9999", "0E+6111"),
            // Below 1E-6176: round to the last place, half to even.
            ("1E-6176", "1E-6176"), ("1E-6177", "0E-6176"), ("5E-6177", "0E-6176"), ("6E-6177", "1E-6176"),
            ("15E-6177", "2E-6176"), ("25E-6177", "2E-6176"), ("1E-9999999", "0E-6176"), ("-1E-6177", "-0E-6176"),
        ]
        for (text, expected) in cases {
            #expect(decimal(text).stringValue == expected, "\(text)")
        }
    }

    @Test("a string that is not a number is refused with a reason that says why")
    func badStrings() {
        let cases: [(String, String)] = [
            ("", "empty"), ("-", "no digits"), ("+", "no digits"), (".", "no digits"), ("abc", "character 1 (\"a\")"),
            ("1.2.3", "character 4 (\".\") is a second decimal point"), ("1e", "exponent has no digits"),
            ("1E+", "exponent has no digits"), ("--1", "character 2 (\"-\")"), (" 1", "character 1 (\" \")"),
            ("1 ", "character 2 (\" \")"), ("1,5", "character 2 (\",\")"), ("e5", "character 1 (\"e\")"),
            ("NaNx", "character 1 (\"N\")"), ("Infinit", "character 1 (\"I\")"), ("0x10", "character 2 (\"x\")"),
            ("1e5.5", "character 4 (\".\") is not a digit of the exponent"), ("١٢", "character 1 (\"١\")"),
            ("1_000", "character 2 (\"_\")"),
        ]
        for (text, reason) in cases {
            switch Decimal128.parseOrExplain(text) {
            case .success(let value): Issue.record("\"\(text)\" parsed as \(value)")
            case .failure(let error):
                #expect(error.message.contains("\"\(text)\" is not a Decimal128") && error.message.contains(reason), "\(error.message)")
            }
        }
    }

    @Test("random encodings print and parse back to the identical bits")
    func randomRoundTrip() throws {
        var random = TestRandom(seed: TestSeed.make("Decimal128.randomRoundTrip"))
        for _ in 0..<5_000 {
            let value = random.decimal(exponents: Decimal128.minExponent...Decimal128.maxExponent)
            let parsed = try Decimal128.parseOrExplain(value.stringValue).get()
            #expect(bits(parsed) == bits(value), "\(value)")
        }
    }

    // MARK: - Conversions

    @Test("integers, doubles, floats, Foundation's Decimal and numeric literals")
    func conversions() throws {
        #expect(Decimal128(0).stringValue == "0")
        #expect(Decimal128(42).stringValue == "42")
        #expect(Decimal128(-42).stringValue == "-42")
        #expect(Decimal128(Int64.max).stringValue == "9223372036854775807")
        #expect(Decimal128(Int64.min).stringValue == "-9223372036854775808")
        #expect(Decimal128(UInt64.max).stringValue == "18446744073709551615")
        #expect(Decimal128(Int8(-5)).stringValue == "-5")
        #expect(Decimal128(UInt128.max).stringValue == "3.402823669209384634633746074317682E+38")
        #expect(Decimal128(exactly: UInt128.max) == nil)
        #expect(Decimal128(exactly: Decimal128.powersOfTen[38]) == decimal("1E+38"))
        #expect(Decimal128(exactly: Int64.min) == decimal("-9223372036854775808"))

        let doubles: [(Double, String)] = [
            (0.1, "0.1"), (1.0, "1"), (2.5, "2.5"), (-0.0, "-0"), (0.0, "0"), (100.0, "100"), (123.456, "123.456"),
            (1e16, "1E+16"), (1e-7, "1E-7"), (0.3, "0.3"), (0.1 + 0.2, "0.30000000000000004"),
            (.leastNonzeroMagnitude, "5E-324"), (1.7976931348623157e308, "1.7976931348623157E+308"), (-1234.5678, "-1234.5678"),
            (.infinity, "Inf"), (-.infinity, "-Inf"), (.nan, "NaN"),
        ]
        for (double, expected) in doubles {
            #expect(Decimal128(double).stringValue == expected, "\(double)")
            let back = Decimal128(double).doubleValue
            #expect(back == double || (back.isNaN && double.isNaN), "\(double)")
        }
        #expect(Decimal128(-0.0).isSignMinus)
        #expect(Decimal128(Float(0.1)).stringValue == "0.1")
        #expect(Decimal128(Float(1e10)).stringValue == "1E+10")
        #expect(decimal("1E+400").doubleValue == .infinity)
        #expect(decimal("-1E-400").doubleValue == 0)
        #expect(decimal("0.1").doubleValue == 0.1)
        #expect(decimal("3.333333333333333333333333333333333").doubleValue == 10.0 / 3.0)

        #expect(Decimal128(Decimal(string: "12.50")!).stringValue == "12.5")
        #expect(Decimal128(Decimal(string: "-0.001")!).stringValue == "-0.001")
        #expect(Decimal128(Decimal.nan).isNaN)
        #expect(decimal("12.50").decimalValue == Decimal(string: "12.5")!)
        #expect(decimal("-1E+5").decimalValue == Decimal(-100_000))
        #expect(Decimal128.infinity.decimalValue.isNaN)

        let integer: Decimal128 = 7
        let float: Decimal128 = 0.1
        #expect(integer.stringValue == "7")
        #expect(float.stringValue == "0.1")
        #expect(Decimal128.zero.stringValue == "0")
    }

    // MARK: - Arithmetic

    @Test("addition and subtraction: exact results keep the smaller exponent; others round half to even")
    func addition() {
        let cases: [(String, String, String, String)] = [
            // (a, b, a + b, a - b)
            ("1.5", "2.25", "3.75", "-0.75"),
            ("0.1", "0.2", "0.3", "-0.1"),
            ("1.0", "1.00", "2.00", "0.00"),
            ("1", "1", "2", "0"),
            ("1E+3", "1", "1001", "999"),
            ("1E+3", "-0", "1000", "1000"),
            ("-0", "0", "0", "-0"),
            ("-0", "-0", "-0", "0"),
            ("0E+5", "1.5", "1.5", "-1.5"),
            ("1.5", "0E-3", "1.500", "1.500"),
            ("-2", "3", "1", "-5"),
            (
                "9999999999999999999999999999999999", "1", "1.000000000000000000000000000000000E+34",
                "9999999999999999999999999999999998"
            ),
            ("1E+10", "1E-30", "10000000000.00000000000000000000000", "10000000000.00000000000000000000000"),
            ("1E+10", "5E-24", "10000000000.00000000000000000000000", "9999999999.999999999999999999999995"),
            ("1E+10", "5.1E-24", "10000000000.00000000000000000000001", "9999999999.999999999999999999999995"),
            // Ties to even on the 35th digit.
            (
                "1234567890123456789012345678901234", "0.5", "1234567890123456789012345678901234",
                "1234567890123456789012345678901234"
            ),
            (
                "1234567890123456789012345678901235", "0.5", "1234567890123456789012345678901236",
                "1234567890123456789012345678901234"
            ),
            // Digits of b below a's last place: the borrow and the rounding of the complement.
            (
                "1.234567890123456789012345678901234E+43", "5000000001", "1.234567890123456789012345678901235E+43",
                "1.234567890123456789012345678901233E+43"
            ),
            (
                "1.234567890123456789012345678901234E+43", "4999999999", "1.234567890123456789012345678901234E+43",
                "1.234567890123456789012345678901234E+43"
            ),
            (
                "1.234567890123456789012345678901234E+43", "5000000000", "1.234567890123456789012345678901234E+43",
                "1.234567890123456789012345678901234E+43"
            ),
            (
                "1.234567890123456789012345678901234E+43", "6000000000", "1.234567890123456789012345678901235E+43",
                "1.234567890123456789012345678901233E+43"
            ),
            // Overflow and the largest value.
            ("9.999999999999999999999999999999999E+6144", "1E+6111", "Inf", "9.999999999999999999999999999999998E+6144"),
            ("-9.999999999999999999999999999999999E+6144", "1E+6111", "-9.999999999999999999999999999999998E+6144", "-Inf"),
            (
                "9.999999999999999999999999999999999E+6144", "4E+6110", "9.999999999999999999999999999999999E+6144",
                "9.999999999999999999999999999999999E+6144"
            ),
            // Specials.
            ("Inf", "1", "Inf", "Inf"),
            ("1", "Inf", "Inf", "-Inf"),
            ("Inf", "Inf", "Inf", "NaN"),
            ("-Inf", "Inf", "NaN", "-Inf"),
            ("NaN", "1", "NaN", "NaN"),
            ("1", "sNaN", "NaN", "NaN"),
        ]
        for (a, b, sum, difference) in cases {
            #expect((decimal(a) + decimal(b)).stringValue == sum, "\(a) + \(b)")
            #expect((decimal(a) - decimal(b)).stringValue == difference, "\(a) - \(b)")
            #expect((decimal(b) + decimal(a)).stringValue == sum, "\(b) + \(a)")
        }
        #expect(!(decimal("1") + decimal("sNaN")).isSignaling)
        var total: Decimal128 = 0
        for _ in 0..<10 { total += 0.1 }
        #expect(total.stringValue == "1.0")
        total -= decimal("0.25")
        #expect(total.stringValue == "0.75")
    }

    @Test("multiplication: exponents add; over 34 digits rounds half to even")
    func multiplication() {
        let nines = "9999999999999999999999999999999999"
        let cases: [(String, String, String)] = [
            ("1.5", "2", "3.0"), ("0.1", "0.1", "0.01"), ("1.10", "1.10", "1.2100"), ("-2", "0", "-0"), ("-2", "-3", "6"),
            ("2", "5", "10"), ("1E+3", "1E-3", "1"), ("12345", "-1E+40", "-1.2345E+44"),
            (nines, nines, "9.999999999999999999999999999999998E+67"),
            (nines, "2", "2.000000000000000000000000000000000E+34"),
            ("1234567890123456789", "1234567890123456789", "1.524157875323883675019051998750191E+36"),
            ("1111111111111111111111111111111111", "3", "3333333333333333333333333333333333"),
            ("1111111111111111111111111111111111", "1.5", "1666666666666666666666666666666666"),
            ("1111111111111111111111111111111113", "1.5", "1666666666666666666666666666666670"),
            ("3333333333333333333333333333333333", "5", "1.666666666666666666666666666666666E+34"),
            ("3333333333333333333333333333333335", "5", "1.666666666666666666666666666666668E+34"),
            ("1E+6111", "10", "1.0E+6112"), ("1E+6111", "1E+6111", "Inf"), ("-1E+6111", "1E+6111", "-Inf"),
            ("1E-6176", "0.1", "0E-6176"), ("1E-6176", "0.6", "1E-6176"), ("0E+6111", "0E+6111", "0E+6111"),
            ("1E-3000", "1E-3000", "1E-6000"), ("0E-6176", "0E-6176", "0E-6176"),
            ("Inf", "-2", "-Inf"), ("Inf", "0", "NaN"), ("0", "-Inf", "NaN"), ("NaN", "2", "NaN"),
        ]
        for (a, b, product) in cases {
            #expect((decimal(a) * decimal(b)).stringValue == product, "\(a) × \(b)")
            #expect((decimal(b) * decimal(a)).stringValue == product, "\(b) × \(a)")
        }
        var value: Decimal128 = 3
        value *= 0.5
        #expect(value.stringValue == "1.5")
    }

    @Test("division: exact quotients take the exponent nearest the difference; others round half to even")
    func division() {
        let cases: [(String, String, String)] = [
            ("1", "3", "0.3333333333333333333333333333333333"), ("2", "3", "0.6666666666666666666666666666666667"),
            ("1", "7", "0.1428571428571428571428571428571429"), ("1", "4", "0.25"), ("10", "4", "2.5"),
            ("100", "4", "25"), ("1.00", "1", "1.00"), ("1", "8", "0.125"), ("-1", "8", "-0.125"), ("6", "-3", "-2"),
            ("1", "1E+5", "0.00001"), ("1E+5", "1", "1E+5"), ("12", "0.4", "3E+1"), ("1", "0.001", "1E+3"),
            ("2E+10", "3", "6666666666.666666666666666666666667"),
            ("9999999999999999999999999999999999", "3", "3333333333333333333333333333333333"),
            ("1", "9999999999999999999999999999999999", "1.000000000000000000000000000000000E-34"),
            ("1E-6176", "2", "0E-6176"), ("3E-6176", "2", "2E-6176"), ("1E+6111", "1E-40", "Inf"),
            ("0", "5", "0"), ("0.00", "5", "0.00"), ("-0", "5", "-0"), ("0", "-5", "-0"),
            ("1", "0", "Inf"), ("-1", "0", "-Inf"), ("1", "-0", "-Inf"), ("0", "0", "NaN"), ("Inf", "Inf", "NaN"),
            ("Inf", "-2", "-Inf"), ("5", "Inf", "0E-6176"), ("5", "-Inf", "-0E-6176"), ("NaN", "1", "NaN"), ("1", "NaN", "NaN"),
        ]
        for (a, b, quotient) in cases {
            #expect((decimal(a) / decimal(b)).stringValue == quotient, "\(a) / \(b)")
        }
        var value: Decimal128 = 1
        value /= 8
        #expect(value.stringValue == "0.125")
    }

    @Test("random sums, differences and products agree with exact digit arithmetic rounded to 34 digits")
    func randomArithmeticAgainstExactDigits() {
        var random = TestRandom(seed: TestSeed.make("Decimal128.randomArithmeticAgainstExactDigits"))
        var mismatches = 0
        for _ in 0..<5_000 {
            let a = random.decimal(exponents: -40...40)
            let b = random.decimal(exponents: -40...40)
            guard case .finite(let an, let ac, let ae) = a.parts, case .finite(let bn, let bc, let be) = b.parts else { continue }
            let x = ExactDecimal(negative: an, coefficient: ac, exponent: ae)
            let y = ExactDecimal(negative: bn, coefficient: bc, exponent: be)
            for (operation, result, expected) in [("+", a + b, x.plus(y)), ("-", a - b, x.plus(y.negated)), ("*", a * b, x.times(y))] {
                let got: ExactDecimal? =
                    if case .finite(let n, let c, let e) = result.parts {
                        ExactDecimal(negative: n, coefficient: c, exponent: e)
                    } else { nil }
                if got != expected.rounded() {
                    mismatches += 1
                    if mismatches <= 5 { Issue.record("\(a) \(operation) \(b) = \(result), expected \(expected.rounded())") }
                }
            }
        }
        #expect(mismatches == 0)
    }

    @Test("random quotients: exact ones come back exactly, and q × b is within half a unit of a")
    func randomDivision() {
        var random = TestRandom(seed: TestSeed.make("Decimal128.randomDivision"))
        for _ in 0..<3_000 {
            // Exact: (b × c) / b == c when b × c fits in 34 digits.
            let b = random.decimal(exponents: -20...20, maxDigits: 17)
            let c = random.decimal(exponents: -20...20, maxDigits: 17)
            guard !b.isZero else { continue }
            #expect((b * c) / b == c, "\(b) × \(c) / \(b)")
            // Inexact: the error is at most half a unit in the 34th digit of the quotient.
            let a = random.decimal(exponents: -20...20)
            let q = a / b
            guard case .finite(_, _, let qe) = q.parts, !a.isZero else { continue }
            let x = ExactDecimal(decimal: a)
            let y = ExactDecimal(decimal: b)
            // |a − q × b| ≤ ½ × 10^qe × |b|, compared as 2|a − qb| ≤ 10^qe |b|.
            let error = x.plus(ExactDecimal(decimal: q).times(y).negated)
            let twiceError = error.magnitudeTimes(2)
            let bound = ExactDecimal(negative: false, coefficient: 1, exponent: qe).times(y.absolute)
            #expect(!bound.isLess(than: twiceError), "\(a) / \(b) = \(q)")
        }
    }

    // MARK: - Order, equality, hashing

    @Test("numeric order across exponents and signs, with NaN first and equal to itself")
    func ordering() {
        let ascending = [
            "NaN", "-Inf", "-9.999999999999999999999999999999999E+6144", "-1E+40", "-100", "-1E+1", "-1.5", "-1",
            "-0.5", "-1E-6176", "0", "1E-6176", "0.1", "0.5", "1", "1.000000000000000000000000000000001", "1.5", "2",
            "9999999999", "1E+10", "1E+40", "9.999999999999999999999999999999999E+6144", "Inf",
        ].map { decimal($0) }
        for i in ascending.indices {
            for j in ascending.indices {
                #expect((ascending[i] < ascending[j]) == (i < j), "\(ascending[i]) < \(ascending[j])")
                #expect((ascending[i] == ascending[j]) == (i == j), "\(ascending[i]) == \(ascending[j])")
            }
        }
        #expect(decimal("1.0") == decimal("1.00"))
        #expect(decimal("1") == decimal("1.000000000000000000000000000000000"))
        #expect(decimal("1E+2") == decimal("100"))
        #expect(decimal("1E+2") == decimal("100.0"))
        #expect(decimal("-0") == decimal("0E+300"))
        #expect(decimal("0E-6176") == decimal("-0E+6111"))
        #expect(!(decimal("-0") < decimal("0")))
        #expect(decimal("NaN") == decimal("-sNaN"))
        #expect(decimal("1.00") <= decimal("1"))
        #expect(decimal("1.00") >= decimal("1"))
        #expect(!(decimal("123.4") > decimal("1.234E+2")))
        #expect(decimal("123.41") > decimal("1.234E+2"))
        #expect(decimal("-123.41") < decimal("-1.234E+2"))
        #expect([decimal("2"), decimal("NaN"), decimal("-1"), decimal("1.5")].sorted().map(\.stringValue) == ["NaN", "-1", "1.5", "2"])
    }

    @Test("equal numbers hash equally whatever their exponent or sign of zero")
    func hashing() {
        let ones = ["1", "1.0", "1.00", "10E-1", "0.001E+3", "1.000000000000000000000000000000000"].map { decimal($0) }
        #expect(Set(ones).count == 1)
        #expect(Set(ones.map(\.hashValue)).count == 1)
        let zeros = ["0", "-0", "0.000", "0E+100", "-0E-6176"].map { decimal($0) }
        #expect(Set(zeros).count == 1)
        #expect(Set(["NaN", "-NaN", "sNaN"].map { decimal($0) }).count == 1)
        #expect(Set(["Inf", "-Inf", "1", "-1", "1E+1", "10", "100E-1"].map { decimal($0) }).count == 5)
        #expect(decimal("1.5").canonical.stringValue == "1.5")
        #expect(decimal("1.500").canonical.stringValue == "1.5")
        #expect(decimal("1500").canonical.stringValue == "1.5E+3")
    }

    @Test("sign, magnitude and classification")
    func signAndClassification() {
        var value = decimal("1.50")
        value.negate()
        #expect(value.stringValue == "-1.50")
        #expect((-value).stringValue == "1.50")
        #expect(value.magnitude.stringValue == "1.50")
        #expect(decimal("-Inf").magnitude.stringValue == "Inf")
        #expect((-decimal("0")).stringValue == "-0")
        #expect(decimal("NaN").isNaN && !decimal("NaN").isSignaling && decimal("sNaN").isSignaling && decimal("sNaN").isSignalingNaN)
        #expect(decimal("sNaN").isNaN && !decimal("1").isNaN && !decimal("Inf").isNaN)
        #expect(decimal("Inf").isInfinite && decimal("-Inf").isInfinite && !decimal("NaN").isInfinite && !decimal("1").isInfinite)
        #expect(decimal("1").isFinite && !decimal("NaN").isFinite && !decimal("-Inf").isFinite)
        #expect(decimal("0.00").isZero && decimal("-0").isZero && !decimal("1E-6176").isZero)
        #expect(decimal("-0").isSignMinus && !decimal("0").isSignMinus)
        #expect(decimal("3").distance(to: decimal("1.5")).stringValue == "-1.5")
        #expect(decimal("3").advanced(by: decimal("1.5")).stringValue == "4.5")
    }

    // MARK: - Key encoding

    @Test("index keys sort bytewise in numeric order, equal numbers share a key, NaN first")
    func keyEncodingOrder() {
        var random = TestRandom(seed: TestSeed.make("Decimal128.keyEncodingOrder"))
        let interesting = [
            "NaN", "sNaN", "-NaN", "-Inf", "Inf", "0", "-0", "0.00", "0E+6111", "0E-6176", "1", "1.0", "1.00", "10E-1",
            "-1", "-1.0", "1E-6176", "-1E-6176", "2E-6176", "1E-6175", "10E-6176", "0.1", "0.10", "0.09999999999999999999999999999999999",
            "0.5", "-0.5", "1.5", "-1.5", "2", "9", "10", "1E+1", "11", "99", "100", "1E+2", "-100", "-99", "-1E+2",
            "1.000000000000000000000000000000001", "0.9999999999999999999999999999999999", "-1.000000000000000000000000000000001",
            "-0.9999999999999999999999999999999999", "1E+40", "-1E+40", "9.999999999999999999999999999999999E+6144",
            "-9.999999999999999999999999999999999E+6144", "1E+6144", "1.000000000000000000000000000000000E+6144",
            "123456789", "123456789.0", "1.23456789E+8", "123456790", "-123456789",
        ].map { decimal($0) }
        let values =
            interesting
            + (0..<150).map { _ in random.decimal(exponents: -30...30, maxDigits: 6) }
            + (0..<50).map { _ in random.decimal(exponents: Decimal128.minExponent...Decimal128.maxExponent) }
        let keys = values.map { value -> [UInt8] in
            var key: [UInt8] = []
            KeyEncoding.appendDecimal128(value, to: &key)
            return key
        }
        #expect(keys.allSatisfy { $0.count == 16 })
        var mismatches = 0
        for i in values.indices {
            for j in values.indices {
                let less = values[i] < values[j]
                let equal = values[i] == values[j]
                // A following key part (as in an index entry) must not change the order of unequal values.
                var left = keys[i]
                var right = keys[j]
                KeyEncoding.append(UInt64(j), to: &left)
                KeyEncoding.append(UInt64(i), to: &right)
                if keys[i].lexicographicallyPrecedes(keys[j]) != less || (keys[i] == keys[j]) != equal
                    || (!equal && left.lexicographicallyPrecedes(right) != less)
                {
                    mismatches += 1
                    if mismatches <= 5 { Issue.record("\(values[i]) vs \(values[j]) encode out of order") }
                }
            }
        }
        #expect(mismatches == 0)
        var nan: [UInt8] = []
        var zero: [UInt8] = []
        var infinity: [UInt8] = []
        KeyEncoding.appendDecimal128(.nan, to: &nan)
        KeyEncoding.appendDecimal128(0, to: &zero)
        KeyEncoding.appendDecimal128(.infinity, to: &infinity)
        #expect(nan == [UInt8](repeating: 0, count: 16))
        #expect(zero == [0x80] + [UInt8](repeating: 0, count: 15))
        #expect(infinity == [UInt8](repeating: 0xFF, count: 16))
    }
}

// MARK: - Test support

/// The decimals the random `Decimal128` tests draw.
extension TestRandom {
    /// A finite decimal with up to `maxDigits` digits, favouring the shapes rounding cares about
    /// (runs of 9s, a 5 then zeros, zero).
    mutating func decimal(exponents: ClosedRange<Int>, maxDigits: Int = 34) -> Decimal128 {
        let count = Int.random(in: 1...maxDigits, using: &self)
        var digits: String
        switch Int.random(in: 0..<10, using: &self) {
        case 0: digits = String(repeating: "9", count: count)
        case 1: digits = "5" + String(repeating: "0", count: count - 1)
        case 2: digits = "0"
        default: digits = String((0..<count).map { _ in "0123456789".randomElement(using: &self)! })
        }
        let sign = Bool.random(using: &self) ? "-" : ""
        let exponent = Int.random(in: exponents, using: &self)
        return try! Decimal128.parseOrExplain("\(sign)\(digits)E\(exponent)").get()
    }
}

/// An exact decimal number as a digit array, with school arithmetic: the reference the random
/// tests compare `Decimal128` with. Digits are most significant first, without leading zeros.
struct ExactDecimal: Equatable, CustomStringConvertible {
    var negative: Bool
    var digits: [Int]
    var exponent: Int

    init(negative: Bool, digits: [Int], exponent: Int) {
        self.negative = negative
        self.digits = Array(digits.drop { $0 == 0 })
        self.exponent = exponent
    }

    init(negative: Bool, coefficient: UInt128, exponent: Int) {
        self.init(negative: negative, digits: String(coefficient).map { Int(String($0))! }, exponent: exponent)
    }

    init(decimal: Decimal128) {
        guard case .finite(let negative, let coefficient, let exponent) = decimal.parts else { fatalError("not finite") }
        self.init(negative: negative, coefficient: coefficient, exponent: exponent)
    }

    var description: String { "\(negative ? "-" : "")\(digits.isEmpty ? "0" : digits.map(String.init).joined())E\(exponent)" }
    var negated: ExactDecimal { ExactDecimal(negative: !negative, digits: digits, exponent: exponent) }
    var absolute: ExactDecimal { ExactDecimal(negative: false, digits: digits, exponent: exponent) }

    /// The digits at exponent `target` (≤ exponent), least significant first.
    private func littleEndian(at target: Int) -> [Int] {
        [Int](repeating: 0, count: exponent - target) + digits.reversed()
    }

    private static func compareMagnitudes(_ a: [Int], _ b: [Int]) -> Int {
        let a = Array(a.reversed().drop { $0 == 0 })
        let b = Array(b.reversed().drop { $0 == 0 })
        if a.count != b.count { return a.count < b.count ? -1 : 1 }
        for (x, y) in zip(a, b) where x != y { return x < y ? -1 : 1 }
        return 0
    }

    /// The exact sum, with IEEE 754's sign for an exact zero (+0 unless both are negative).
    func plus(_ other: ExactDecimal) -> ExactDecimal {
        let target = Swift.min(exponent, other.exponent)
        let a = littleEndian(at: target)
        let b = other.littleEndian(at: target)
        let length = Swift.max(a.count, b.count) + 1
        func at(_ x: [Int], _ i: Int) -> Int { i < x.count ? x[i] : 0 }
        var result = [Int](repeating: 0, count: length)
        var resultNegative: Bool
        if negative == other.negative {
            var carry = 0
            for i in 0..<length {
                let sum = at(a, i) + at(b, i) + carry
                result[i] = sum % 10
                carry = sum / 10
            }
            resultNegative = negative
        } else {
            let order = Self.compareMagnitudes(a, b)
            let (big, small) = order >= 0 ? (a, b) : (b, a)
            var borrow = 0
            for i in 0..<length {
                var difference = at(big, i) - at(small, i) - borrow
                borrow = difference < 0 ? 1 : 0
                if difference < 0 { difference += 10 }
                result[i] = difference
            }
            resultNegative = order == 0 ? false : order > 0 ? negative : other.negative
        }
        let sum = ExactDecimal(negative: resultNegative, digits: result.reversed(), exponent: target)
        if sum.digits.isEmpty && digits.isEmpty && other.digits.isEmpty {
            return ExactDecimal(negative: negative && other.negative, digits: [], exponent: target)
        }
        return sum
    }

    func times(_ other: ExactDecimal) -> ExactDecimal {
        let a = Array(digits.reversed())
        let b = Array(other.digits.reversed())
        var result = [Int](repeating: 0, count: a.count + b.count + 1)
        for (i, x) in a.enumerated() {
            for (j, y) in b.enumerated() { result[i + j] += x * y }
        }
        for i in 0..<(result.count - 1) {
            result[i + 1] += result[i] / 10
            result[i] %= 10
        }
        return ExactDecimal(negative: negative != other.negative, digits: result.reversed(), exponent: exponent + other.exponent)
    }

    func magnitudeTimes(_ factor: Int) -> ExactDecimal {
        absolute.times(ExactDecimal(negative: false, digits: [factor], exponent: 0))
    }

    /// Whether |self| < |other|.
    func isLess(than other: ExactDecimal) -> Bool {
        let target = Swift.min(exponent, other.exponent)
        return Self.compareMagnitudes(littleEndian(at: target), other.littleEndian(at: target)) < 0
    }

    /// Rounded half to even to 34 digits (no exponent limits: the random tests stay far inside).
    func rounded() -> ExactDecimal {
        guard digits.count > 34 else { return self }
        var kept = Array(digits.prefix(34))
        let rest = digits.dropFirst(34)
        let first = rest.first!
        let later = rest.dropFirst().contains { $0 != 0 }
        var newExponent = exponent + rest.count
        if first > 5 || (first == 5 && (later || kept.last! % 2 == 1)) {
            var i = kept.count - 1
            while i >= 0 && kept[i] == 9 {
                kept[i] = 0
                i -= 1
            }
            if i >= 0 {
                kept[i] += 1
            } else {
                kept = [1] + [Int](repeating: 0, count: 33)
                newExponent += 1
            }
        }
        return ExactDecimal(negative: negative, digits: kept, exponent: newExponent)
    }
}

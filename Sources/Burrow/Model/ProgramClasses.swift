import BurrowStore

#if os(Linux) || os(Android) || os(FreeBSD) || os(OpenBSD) || os(Windows)
import Foundation
#endif

/// The program's model classes: every non-generic subclass of `Object` or `EmbeddedObject`
/// the loaded images declare, found once, the first time a realm needs them (a migration
/// without `objectTypes`), as RealmSwift's default schema is every class the Objective-C
/// runtime lists.
///
/// On ELF and COFF platforms the Swift runtime lists the type descriptors each image records
/// (`swift_enumerateAllMetadataSections`); each non-generic class descriptor's mangled name is
/// built from its name and its parents', and resolved with `_typeByName`. Elsewhere the list is
/// empty, and only the classes the process has used are known (see `ClassInfo`).
enum ProgramClasses {
    /// Every model class found, by the name each is stored under.
    static let allByStoredName: [String: [ObjectBase.Type]] = {
        var byName: [String: [ObjectBase.Type]] = [:]
        for type in modelClasses() where type != DynamicObject.self {
            byName[ClassInfo.storedName(of: type), default: []].append(type)
        }
        return byName
    }()

    /// The model classes found that are in the default schema
    /// (`shouldIncludeInDefaultSchema()`), by the name each is stored under.
    static let byStoredName: [String: [ObjectBase.Type]] = allByStoredName.compactMapValues { types in
        let included = types.filter { $0.shouldIncludeInDefaultSchema() }
        return included.isEmpty ? nil : included
    }

    /// The program's one class stored as `name`, or nil if it has none, or several (then it
    /// cannot tell which is meant: a program keeping older versions of a model excludes them
    /// with `shouldIncludeInDefaultSchema()`, as in RealmSwift).
    static func uniqueClass(named name: String) -> ObjectBase.Type? {
        guard let candidates = byStoredName[name], candidates.count == 1 else { return nil }
        return candidates[0]
    }

    #if os(Linux) || os(Android) || os(FreeBSD) || os(OpenBSD) || os(Windows)
    /// Every non-generic class of the loaded images that is an `ObjectBase` subclass (not
    /// `Object`, `EmbeddedObject` or `ObjectBase` themselves).
    private static func modelClasses() -> [ObjectBase.Type] {
        let names = Names()
        enumerateAllMetadataSections(
            { sections, context in
                let names = Unmanaged<Names>.fromOpaque(context!).takeUnretainedValue()
                names.collect(from: sections)
                return true
            }, Unmanaged.passUnretained(names).toOpaque())
        let bases: [ObjectBase.Type] = [ObjectBase.self, Object.self, EmbeddedObject.self]
        return names.mangled.compactMap { name in
            guard let type = _typeByName(name) as? ObjectBase.Type, !bases.contains(where: { $0 == type }) else { return nil }
            return type
        }
    }

    /// The mangled names of the class descriptors found so far.
    private final class Names {
        var mangled: [String] = []

        /// Reads the type descriptor records of one image's `swift5_type_metadata` section.
        /// `sections` is the runtime's `MetadataSections`: a version word, a base address, two
        /// reserved words, then address and length pairs, the third of which is that section.
        func collect(from sections: UnsafeRawPointer) {
            let start = sections.load(fromByteOffset: 8 * MemoryLayout<UInt>.size, as: UInt.self)
            let length = sections.load(fromByteOffset: 9 * MemoryLayout<UInt>.size, as: Int.self)
            guard let records = UnsafeRawPointer(bitPattern: start) else { return }
            for index in 0..<(length / 4) {
                // A 32-bit offset to the descriptor; low bits 1: to a pointer to it.
                let record = records + index * 4
                let offset = record.load(as: Int32.self)
                var descriptor = record + Int(offset & ~3)
                if offset & 3 == 1 { descriptor = descriptor.load(as: UnsafeRawPointer.self) }
                let flags = descriptor.load(as: UInt32.self)
                // Kind 16 is a class; bit 7, a generic one (which has no one type to resolve).
                guard flags & 0x1F == 16, flags & 0x80 == 0, let name = Self.mangledName(of: descriptor) else { continue }
                mangled.append(name)
            }
        }

        /// The mangled name of a nominal type descriptor, from its module down (`4Main3DogC`,
        /// `4Main2V05OwnerO3DogC`): nil if a parent is not a module, class, struct or enum
        /// (an extension, a function, a private discriminator) or is generic, which
        /// `_typeByName` could not resolve from these parts alone.
        static func mangledName(of descriptor: UnsafeRawPointer) -> String? {
            var parts: [String] = []
            var current = descriptor
            while true {
                // Kinds: 0 a module, 16 a class, 17 a struct, 18 an enum; the others have no
                // plain name at this offset.
                let flags = current.load(as: UInt32.self)
                let kind = flags & 0x1F
                // A type inside a generic one has no name without its parent's arguments.
                if kind != 0, flags & 0x80 != 0 { return nil }
                let suffix: String
                switch kind {
                case 0: suffix = ""
                case 16: suffix = "C"
                case 17: suffix = "V"
                case 18: suffix = "O"
                default: return nil
                }
                guard let name = relativeString(current + 8), !name.isEmpty, name.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
                if kind == 0 {
                    parts.append("\(name.utf8.count)\(name)")
                    return parts.reversed().joined()
                }
                parts.append("\(name.utf8.count)\(name)\(suffix)")
                // The parent: a relative pointer, indirect when its low bit is set.
                let offset = (current + 4).load(as: Int32.self)
                guard offset != 0 else { return nil }
                var parent = current + 4 + Int(offset & ~1)
                if offset & 1 != 0 { parent = parent.load(as: UnsafeRawPointer.self) }
                current = parent
            }
        }

        /// The C string a 32-bit relative pointer at `field` points to.
        private static func relativeString(_ field: UnsafeRawPointer) -> String? {
            let offset = field.load(as: Int32.self)
            guard offset != 0 else { return nil }
            return String(cString: (field + Int(offset)).assumingMemoryBound(to: CChar.self))
        }
    }
    #else
    private static func modelClasses() -> [ObjectBase.Type] { [] }
    #endif
}

#if os(Linux) || os(Android) || os(FreeBSD) || os(OpenBSD) || os(Windows)
/// The Swift runtime's list of the metadata sections of every loaded image, exported by the
/// standard library on ELF and COFF platforms (swift-testing finds tests through it).
@_silgen_name("swift_enumerateAllMetadataSections")
private func enumerateAllMetadataSections(
    _ body: @convention(c) (_ sections: UnsafeRawPointer, _ context: UnsafeMutableRawPointer?) -> Bool,
    _ context: UnsafeMutableRawPointer?)
#endif

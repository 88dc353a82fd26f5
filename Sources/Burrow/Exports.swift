import BurrowStore
// `import Burrow` brings Foundation into scope, as code written against RealmSwift expects
// (RealmSwift is built on its Objective-C module `Realm`, whose module map exports
// Foundation). Models and code ported from RealmSwift use `Date`, `Data`, `UUID` and `URL`
// without an import of their own.
@_documentation(visibility: internal) @_exported import Foundation

@_exported import enum BurrowStore.CollectionKind
@_exported import struct BurrowStore.Decimal128
// The value and schema types users name, which the store below the API defines: `import Burrow`
// brings them, as it brings everything else a user writes. The rest of the store (its rows,
// tables and codecs) is the package's own.
@_exported import struct BurrowStore.ObjectId
@_exported import struct BurrowStore.Property
@_exported import enum BurrowStore.PropertyType

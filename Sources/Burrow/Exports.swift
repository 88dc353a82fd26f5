// `import Burrow` brings Foundation into scope, as code written against RealmSwift expects
// (RealmSwift is built on its Objective-C module `Realm`, whose module map exports
// Foundation). Models and code ported from RealmSwift use `Date`, `Data`, `UUID` and `URL`
// without an import of their own.
@_documentation(visibility: internal) @_exported import Foundation

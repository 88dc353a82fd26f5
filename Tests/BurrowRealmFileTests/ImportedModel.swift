import Burrow
import Foundation

/// The model of `format24_all_types.realm`, as a RealmSwift app declares it (see the fixtures'
/// README), ported to Burrow: the classes an import fills.
enum ImportedModel {
    final class Owner: Object {
        override class func _realmObjectName() -> String? { "Owner" }
        override class func shouldIncludeInDefaultSchema() -> Bool { false }  // test only
        @Persisted(primaryKey: true) var name: String = ""
        @Persisted var age: Int = 0
        @Persisted(originProperty: "owner") var owned: LinkingObjects<AllTypes>
    }

    final class Coordinates: EmbeddedObject {
        override class func _realmObjectName() -> String? { "Coordinates" }
        override class func shouldIncludeInDefaultSchema() -> Bool { false }  // test only
        @Persisted var lat: Double = 0
        @Persisted var lon: Double = 0
    }

    final class Address: EmbeddedObject {
        override class func _realmObjectName() -> String? { "Address" }
        override class func shouldIncludeInDefaultSchema() -> Bool { false }  // test only
        @Persisted var street: String = ""
        @Persisted var city: String?
        @Persisted var coordinates: Coordinates?
    }

    final class AllTypes: Object {
        override class func _realmObjectName() -> String? { "AllTypes" }
        override class func shouldIncludeInDefaultSchema() -> Bool { false }  // test only
        @Persisted(primaryKey: true) var _id: ObjectId = ObjectId()
        @Persisted var bool: Bool = false
        @Persisted var optBool: Bool?
        @Persisted var int: Int = 0
        @Persisted var optInt: Int?
        @Persisted var float: Float = 0
        @Persisted var optFloat: Float?
        @Persisted var double: Double = 0
        @Persisted var optDouble: Double?
        @Persisted var string: String = ""
        @Persisted var optString: String?
        @Persisted var data: Data = Data()
        @Persisted var optData: Data?
        @Persisted var date: Date = Date(timeIntervalSince1970: 0)
        @Persisted var optDate: Date?
        @Persisted var decimal: Decimal128 = Decimal128()
        @Persisted var optDecimal: Decimal128?
        @Persisted var objectId: ObjectId = ObjectId()
        @Persisted var optObjectId: ObjectId?
        @Persisted var uuid: UUID = UUID()
        @Persisted var optUuid: UUID?
        @Persisted var any: AnyRealmValue = .none
        @Persisted(indexed: true) var indexedString: String = ""
        @Persisted(indexed: true) var indexedInt: Int = 0
        @Persisted var owner: Owner?
        @Persisted var ownerList: List<Owner>
        @Persisted var ownerSet: MutableSet<Owner>
        @Persisted var ownerMap: Map<String, Owner?>
        @Persisted var address: Address?
        @Persisted var addressList: List<Address>
        @Persisted var addressMap: Map<String, Address?>
        @Persisted var boolList: List<Bool>
        @Persisted var optBoolList: List<Bool?>
        @Persisted var boolSet: MutableSet<Bool>
        @Persisted var optBoolSet: MutableSet<Bool?>
        @Persisted var boolMap: Map<String, Bool>
        @Persisted var optBoolMap: Map<String, Bool?>
        @Persisted var intList: List<Int>
        @Persisted var optIntList: List<Int?>
        @Persisted var intSet: MutableSet<Int>
        @Persisted var optIntSet: MutableSet<Int?>
        @Persisted var intMap: Map<String, Int>
        @Persisted var optIntMap: Map<String, Int?>
        @Persisted var floatList: List<Float>
        @Persisted var optFloatList: List<Float?>
        @Persisted var floatSet: MutableSet<Float>
        @Persisted var optFloatSet: MutableSet<Float?>
        @Persisted var floatMap: Map<String, Float>
        @Persisted var optFloatMap: Map<String, Float?>
        @Persisted var doubleList: List<Double>
        @Persisted var optDoubleList: List<Double?>
        @Persisted var doubleSet: MutableSet<Double>
        @Persisted var optDoubleSet: MutableSet<Double?>
        @Persisted var doubleMap: Map<String, Double>
        @Persisted var optDoubleMap: Map<String, Double?>
        @Persisted var stringList: List<String>
        @Persisted var optStringList: List<String?>
        @Persisted var stringSet: MutableSet<String>
        @Persisted var optStringSet: MutableSet<String?>
        @Persisted var stringMap: Map<String, String>
        @Persisted var optStringMap: Map<String, String?>
        @Persisted var dataList: List<Data>
        @Persisted var optDataList: List<Data?>
        @Persisted var dataSet: MutableSet<Data>
        @Persisted var optDataSet: MutableSet<Data?>
        @Persisted var dataMap: Map<String, Data>
        @Persisted var optDataMap: Map<String, Data?>
        @Persisted var dateList: List<Date>
        @Persisted var optDateList: List<Date?>
        @Persisted var dateSet: MutableSet<Date>
        @Persisted var optDateSet: MutableSet<Date?>
        @Persisted var dateMap: Map<String, Date>
        @Persisted var optDateMap: Map<String, Date?>
        @Persisted var decimalList: List<Decimal128>
        @Persisted var optDecimalList: List<Decimal128?>
        @Persisted var decimalSet: MutableSet<Decimal128>
        @Persisted var optDecimalSet: MutableSet<Decimal128?>
        @Persisted var decimalMap: Map<String, Decimal128>
        @Persisted var optDecimalMap: Map<String, Decimal128?>
        @Persisted var objectIdList: List<ObjectId>
        @Persisted var optObjectIdList: List<ObjectId?>
        @Persisted var objectIdSet: MutableSet<ObjectId>
        @Persisted var optObjectIdSet: MutableSet<ObjectId?>
        @Persisted var objectIdMap: Map<String, ObjectId>
        @Persisted var optObjectIdMap: Map<String, ObjectId?>
        @Persisted var uuidList: List<UUID>
        @Persisted var optUuidList: List<UUID?>
        @Persisted var uuidSet: MutableSet<UUID>
        @Persisted var optUuidSet: MutableSet<UUID?>
        @Persisted var uuidMap: Map<String, UUID>
        @Persisted var optUuidMap: Map<String, UUID?>
        @Persisted var anyList: List<AnyRealmValue>
        @Persisted var anySet: MutableSet<AnyRealmValue>
        @Persisted var anyMap: Map<String, AnyRealmValue>
    }
}

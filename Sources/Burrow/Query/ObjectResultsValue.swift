/// What results of objects hold: objects (`Object`, `EmbeddedObject`, `DynamicObject`), or
/// projections of them, as in RealmSwift. Results of either sort by a key path and divide
/// into sections (`realm.objects(DogCard.self).sectioned(by: \.title)`), naming a projection's
/// properties by the root properties they read. For Burrow's own use; not meant to be adopted
/// elsewhere.
public protocol _ObjectResultsValue: RealmCollectionValue, SendableMetatype {}

extension ObjectBase: _ObjectResultsValue {}
extension Projection: _ObjectResultsValue {}

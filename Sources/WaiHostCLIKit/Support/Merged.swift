/// Two objects encoded as one: the keys of `base` and then those of `extra` (which must not
/// repeat any of base's). How reports of the library get the CLI's fields (unit index,
/// device identity) without a copy of their shape.
struct Merged<Base: Encodable, Extra: Encodable>: Encodable {
    var base: Base
    var extra: Extra

    func encode(to encoder: Encoder) throws {
        try base.encode(to: encoder)
        try extra.encode(to: encoder)
    }
}

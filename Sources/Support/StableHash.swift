/// A 64-bit FNV-1a hash of a string's UTF-8 bytes: the same on every machine and in every run (Swift's
/// `Hasher` is seeded per process). Shards are chosen by it and augmentation seeds derived from it, so
/// it must never change.
public enum StableHash {
    public static func fnv1a(_ text: String) -> UInt64 {
        var h: UInt64 = 0xcbf29ce484222325
        for b in text.utf8 { h = (h ^ UInt64(b)) &* 0x100000001b3 }
        return h
    }
}

import CCPUFeatures

/// The CPU this process runs on as CPUID reports it (no file is read): vendor, brand, family and model,
/// the microarchitecture they name, and the data caches. `handpose probe --cpu` and `bench` show it, so
/// every figure names the CPU it was measured on. Under a hypervisor, what the hypervisor passes through.
public struct CPUDescription: Sendable, Equatable {
    public let vendor: String
    public let brand: String
    public let family: Int, model: Int, stepping: Int
    /// One core's L1 data and L2 caches and the L3 it shares, in KiB; 0 where CPUID does not say.
    public let l1dKiB: Int, l2KiB: Int, l3KiB: Int
    /// x86-64-v3 (AVX2, FMA) and x86-64-v4 (AVX-512), with the operating system's support.
    public let x86_64v3: Bool, x86_64v4: Bool

    public init(vendor: String, brand: String, family: Int, model: Int, stepping: Int, l1dKiB: Int, l2KiB: Int, l3KiB: Int,
                x86_64v3: Bool, x86_64v4: Bool) {
        self.vendor = vendor
        self.brand = brand
        self.family = family
        self.model = model
        self.stepping = stepping
        self.l1dKiB = l1dKiB
        self.l2KiB = l2KiB
        self.l3KiB = l3KiB
        self.x86_64v3 = x86_64v3
        self.x86_64v4 = x86_64v4
    }

    public static let host: CPUDescription = {
        var id = handpose_read_cpu_identity()
        let levels = handpose_read_cpu_levels()
        let vendor = withUnsafeBytes(of: &id.vendor) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let brand = withUnsafeBytes(of: &id.brand) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return CPUDescription(vendor: vendor, brand: brand.trimmingSpaces, family: Int(id.family), model: Int(id.model),
                              stepping: Int(id.stepping), l1dKiB: Int(id.l1d_kib), l2KiB: Int(id.l2_kib), l3KiB: Int(id.l3_kib),
                              x86_64v3: levels.x86_64v3, x86_64v4: levels.x86_64v4)
    }()

    /// The microarchitecture family and model name, for the server CPUs the engine is tuned and measured on
    /// (AMD's and Intel's documented family/model numbers); nil for others.
    public var microarchitecture: String? {
        switch (vendor, family, model) {
        case ("AuthenticAMD", 0x17, 0x00...0x2f): return "Zen / Zen+"
        case ("AuthenticAMD", 0x17, 0x30...0xff): return "Zen 2"
        case ("AuthenticAMD", 0x19, 0x00...0x0f), ("AuthenticAMD", 0x19, 0x20...0x5f): return "Zen 3"
        case ("AuthenticAMD", 0x19, 0x10...0x1f), ("AuthenticAMD", 0x19, 0x60...0xaf): return "Zen 4"
        case ("AuthenticAMD", 0x1a, _): return "Zen 5"
        case ("GenuineIntel", 6, 0x3f): return "Haswell-EP"
        case ("GenuineIntel", 6, 0x4f): return "Broadwell-EP"
        case ("GenuineIntel", 6, 0x55): return "Skylake-SP / Cascade Lake"
        case ("GenuineIntel", 6, 0x6a), ("GenuineIntel", 6, 0x6c): return "Ice Lake-SP"
        case ("GenuineIntel", 6, 0x8f): return "Sapphire Rapids"
        case ("GenuineIntel", 6, 0xcf): return "Emerald Rapids"
        case ("GenuineIntel", 6, 0xad), ("GenuineIntel", 6, 0xae): return "Granite Rapids"
        default: return nil
        }
    }

    /// One line naming the CPU: brand, microarchitecture (or family and model), caches.
    public var summary: String {
        let name = brand.isEmpty ? vendor : brand
        let arch = microarchitecture ?? "family \(family) model \(model)"
        return "\(name) (\(arch); L1d \(l1dKiB) KiB, L2 \(l2KiB) KiB, L3 \(l3KiB) KiB)"
    }
}

private extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}

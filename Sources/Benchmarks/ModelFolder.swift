import Foundation
import HandLandmarks
import Support

/// The folder of the full hand models that `bench extract` and `bench complete` run.
public enum ModelFolder {
    /// `explicit` (a folder the user named) or, when nil, the first place extract looks that holds the
    /// full hand models; otherwise an error naming every place looked.
    public static func fullHandModels(explicit: String?) throws(BenchmarkError) -> URL {
        try attempt(BenchmarkError.models) { try InstalledFiles(.models, explicit: explicit).folder(holding: HandModels.fileNames(.full)) }
    }
}

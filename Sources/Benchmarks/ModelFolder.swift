import Foundation
import HandLandmarks
import HolisticLandmarks
import Support

/// The folder of the models a bench command runs.
public enum ModelFolder {
    /// `explicit` (a folder the user named) or, when nil, the first place extract looks that holds the
    /// full hand models; otherwise an error naming every place looked.
    public static func fullHandModels(explicit: String?) throws(BenchmarkError) -> URL {
        try attempt(BenchmarkError.models) { try InstalledFiles(.models, explicit: explicit).folder(holding: HandModels.fileNames(.full)) }
    }

    /// The same for `bench holistic`: Holistic's models.
    public static func holisticModels(explicit: String?, refineFace: Bool = false) throws(BenchmarkError) -> URL {
        try attempt(BenchmarkError.models) {
            try InstalledFiles(.models, explicit: explicit).folder(holding: HolisticModels.fileNames(refineFace: refineFace))
        }
    }
}

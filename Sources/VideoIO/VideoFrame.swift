/// One decoded frame: RGB, 8 bits a channel, rows packed without padding, as displayed (rotation applied).
public struct VideoFrame: Sendable {
    /// Position of the frame in decode order, from 0.
    public var index: Int
    /// Presentation time in seconds from the stream's start; strictly increasing within a clip.
    public var time: Double
    public var width: Int
    public var height: Int
    /// `width * height * 3` bytes, R G B.
    public var pixels: [UInt8]

    public init(index: Int, time: Double, width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * 3, "RGB buffer size must be width*height*3")
        self.index = index
        self.time = time
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A black frame.
    public init(width: Int, height: Int) {
        self.init(index: 0, time: 0, width: width, height: height,
                  pixels: [UInt8](repeating: 0, count: width * height * 3))
    }

    public subscript(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        let o = (y * width + x) * 3
        return (pixels[o], pixels[o + 1], pixels[o + 2])
    }
}

import Testing
@testable import MediaCodec

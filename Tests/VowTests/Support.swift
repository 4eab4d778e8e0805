import Testing
@testable import Vow

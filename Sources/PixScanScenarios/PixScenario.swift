import CanonicalJSON
import PixScanEngine
import Yams

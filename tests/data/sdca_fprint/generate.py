"""Write fprint.json: TensorFlow 2.21's SdcaFprint of strings of every length branch of
FarmHash's Fingerprint128 (0 to 1000 bytes, seeded random bytes) as [hex, [low, high]].

Run with TensorFlow 2.21 installed: `python tests/data/sdca_fprint/generate.py`.
"""

import json
import random
from pathlib import Path


def main() -> None:
    import tensorflow as tf

    rng = random.Random(0)
    strings = [b"", b"a", b"ab", b"abc", b"abcd", b"hello", b"12345678", b"123456789abcdef",
               b"0123456789abcdef", b"0123456789abcdefg"]
    for size in [*range(0, 300, 7), 127, 128, 129, 255, 256, 257, 511, 1000]:
        strings.append(bytes(rng.randrange(256) for _ in range(size)))
    out = tf.raw_ops.SdcaFprint(input=tf.constant(strings)).numpy()
    cases = [[s.hex(), [int(v) for v in row]] for s, row in zip(strings, out)]
    (Path(__file__).resolve().parent / "fprint.json").write_text(json.dumps(cases) + "\n")


if __name__ == "__main__":
    main()

# Sourced by the benchmark scripts in this directory (not run on its own).

# fashion_10k FILE: the first 10,000 Fashion-MNIST training images as /X (float64 in [0, 1]).
fashion_10k() {
  /usr/bin/python3 - /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz "$1" <<'PY'
import gzip, sys
import h5py, numpy as np
with gzip.open(sys.argv[1]) as f:
    x = np.frombuffer(f.read(), dtype=np.uint8, offset=16).reshape(-1, 784)[:10000]
with h5py.File(sys.argv[2], "w") as h:
    h["X"] = x.astype(np.float64) / 255
PY
}

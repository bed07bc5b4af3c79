"""lsgl.hash: binary hash codes as `lsgl hash train | encode | eval` learn and judge them
(docs/hash.md), on NumPy arrays. train() returns a Model; Model.encode(X) gives the packed codes
(uint8, rows x ceil(bits / 8), bit k of a code in bit k % 8 of byte k // 8: the layout of
/hash/codes); Model.save(path) writes the model file of `lsgl hash train --output` and load(path)
reads one; evaluate() is `lsgl hash eval`'s MAP and Precision@top.
"""
import numpy as np

from . import _collectively, _handle, _int_vector, _refuse, _reporter, _rows, _words, _lsgl

__all__ = ["Model", "train", "load", "evaluate"]


class Model:
    """A hash model of `lsgl hash train` (the hash function and its training set's codes)."""

    def __init__(self, native):
        self._native = native

    bits = property(lambda self: self._native.bits, doc="code length")
    loss = property(lambda self: self._native.loss, doc="sdh, fsdh or itq")
    solver = property(lambda self: self._native.solver, doc="the B-step solver")
    features = property(lambda self: self._native.features, doc="rbf or raw")
    metric = property(lambda self: self._native.metric,
                      doc="euclidean, or cosine: rows scaled to unit norm before encoding")
    input_dim = property(lambda self: self._native.input_dim, doc="columns of X")
    objective = property(lambda self: np.array(self._native.objective),
                         doc="the training loss after each alternation")
    attributes = property(lambda self: self._native.attributes,
                          doc="the attributes of /hash in the model file")

    def encode(self, X, comm=None):
        """The packed codes of the rows of X (`lsgl hash encode`): a uint8 array of shape
        (rows, ceil(bits / 8)). With comm: this rank's block of rows (lsgl.block)."""
        return self._native.encode(_rows(X, comm), _handle(comm))

    def save(self, path, comm=None):
        """Writes the model file of `lsgl hash train --output` (HDF5; temporary name, then
        renamed), readable by `lsgl hash encode --model` and load()."""
        import os
        self._native.save(os.fspath(path), _handle(comm))

    def __repr__(self):
        return (f"lsgl.hash.Model(bits={self.bits}, loss={self.loss!r}, solver={self.solver!r}, "
                f"features={self.features!r}, metric={self.metric!r})")


def train(X, labels=None, bits=32, *, loss="sdh", solver="dpcd", features=None,
          metric="euclidean", seed=1, comm=None, progress=False, **options):
    """A Model trained as `lsgl hash train` trains it on the rows of X (labels: one integer per
    row, required by the supervised losses sdh and fsdh). Every other option of `lsgl hash
    train` is a keyword with underscores (anchors=300, alternations=5, ns_m=5, balanced=True,
    ...), with its default and checks. With comm: each rank passes its block of rows
    (lsgl.block) and of labels; the model is the same on every rank."""
    _refuse(options, ("input", "dataset", "labels_dataset", "output", "help", "config"),
            "hash.train")
    x = _rows(X, comm)
    y = _int_vector(labels, "labels", comm)
    words = _words(dict(bits=bits, loss=loss, solver=solver, features=features, metric=metric,
                        seed=seed, **options))
    return Model(_lsgl.hash_train(x, y, words, _handle(comm), _reporter(progress)))


def load(path, comm=None):
    """The Model of a model file written by `lsgl hash train` or Model.save."""
    import os
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such file: '{path}'")
    return Model(_lsgl.hash_load(path, _handle(comm)))


def evaluate(queries, query_labels, database, database_labels, *, bits=None, top=500,
             comm=None):
    """`lsgl hash eval`'s measures of Hamming ranking, as a dict: map, precision_at_<top>,
    queries, database, bits, no_relevant (queries without a database item of their label).
    queries and database: packed codes as Model.encode returns them, with one label per row.
    bits: the code length (default: 8 x the bytes per code; the same ranking). With comm: each
    rank passes its block of the queries and the whole database."""
    arrays = []

    def check():
        q, d = np.asarray(queries), np.asarray(database)
        for name, a in (("queries", q), ("database", d)):
            if a.dtype != np.uint8 or a.ndim != 2:
                raise ValueError(f"{name} must be packed codes: a 2-D uint8 array (rows x "
                                 f"bytes per code), got {a.dtype} of shape {a.shape}")
        if q.shape[1] != d.shape[1]:
            raise ValueError(f"queries have {q.shape[1]} bytes per code, the database "
                             f"{d.shape[1]}")
        arrays.extend([np.ascontiguousarray(q), np.ascontiguousarray(d)])

    _collectively(comm, check)
    q, d = arrays
    ql = _int_vector(query_labels, "query_labels", comm)
    dl = _int_vector(database_labels, "database_labels", comm)

    def lengths():
        if len(ql) != len(q) or len(dl) != len(d):
            raise ValueError(f"one label per code: {len(q)} queries with {len(ql)} labels, "
                             f"{len(d)} database codes with {len(dl)} labels")
        width = q.shape[1]
        if bits is not None and not 8 * (width - 1) < bits <= 8 * width:
            raise ValueError(f"bits = {bits} does not fit codes of {width} bytes")

    _collectively(comm, lengths)
    return _lsgl.hash_evaluate(q, ql, d, dl, int(bits or 8 * q.shape[1]), int(top),
                               _handle(comm))

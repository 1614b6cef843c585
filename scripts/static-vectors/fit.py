# Step 3: fits the static vectors and writes assets/engine/static-vectors.bin.
# Needs numpy and scipy. Inputs in the working directory: units.json + units.f32 (the teacher's
# vectors of the WordNet texts) and words.json + words.f32 (the teacher's vectors of single words).
#
# Student: a vector per word, W = W0 + D. W0 is the word's own (centred, unit) USE vector; D is the
# ridge-regression (lambda 1, 100 conjugate-gradient steps) correction that makes the idf-weighted
# mean of a text's word vectors match the text's (unit, centred) USE vector. Words seen only in
# words.json keep W0. Then: PCA to 128 dimensions, each row multiplied by its word's idf over the
# texts, int8 per row with a float32 scale.
import json, math, re, struct, sys
from collections import Counter
import numpy as np, scipy.sparse as sp

OUT = sys.argv[1] if len(sys.argv) > 1 else 'static-vectors.bin'
STOP = set('a an the of to in on at by for with from and or but is are was were be been being do does did what which who whom whose when where why how that this these those it its as into than then there their they he she his her him i you we our your not no can could would should may might will shall has have had s'.split())
TOK = re.compile(r'[a-z0-9]+')
tok = lambda s: TOK.findall(s.lower())
LAM, ITERS, DIMS = 1.0, 100, 128

def quantise(W):
    sc = np.abs(W).max(axis=1, keepdims=True) / 127 + 1e-12
    return np.round(W / sc), sc

units = json.load(open('units.json'))
Y = np.fromfile('units.f32', dtype=np.float32).reshape(-1, 512)
Y = Y / np.linalg.norm(Y, axis=1, keepdims=True)
Y = Y - Y.mean(0)
words = json.load(open('words.json'))
M0 = np.fromfile('words.f32', dtype=np.float32).reshape(-1, 512)
uix = {w: i for i, w in enumerate(words)}

toks = [[t for t in tok(s) if t not in STOP] for s in units]
cnt = Counter(t for ts in toks for t in ts)
vocab = sorted(list(cnt) + [w for w in uix if cnt[w] < 1])
ix = {w: i for i, w in enumerate(vocab)}
df = Counter(t for ts in toks for t in set(ts))
N = len(units)
idf = lambda w: math.log((N + 1) / (df.get(w, 0) + 1))

r, c, v = [], [], []
for i, ts in enumerate(toks):
    ws = [(ix[t], idf(t)) for t in ts if t in ix]
    tot = sum(x for _, x in ws)
    for j, x in ws:
        r.append(i); c.append(j); v.append(x / tot)
X = sp.csr_matrix((np.array(v, np.float32), (r, c)), shape=(N, len(vocab)))

Mn = M0 / np.linalg.norm(M0, axis=1, keepdims=True)
mu0 = Mn.mean(0)
W0 = np.zeros((len(vocab), 512), np.float32)
for w, i in ix.items():
    j = uix.get(w)
    if j is not None:
        W0[i] = Mn[j] - mu0

# (X^T X + lam I) D = X^T R by conjugate gradients, all 512 columns at once.
R = (Y - X @ W0).astype(np.float32)
Xt = X.T.tocsr()
B = Xt @ R
D = np.zeros_like(B); Rr = B.copy(); P = Rr.copy(); rs = (Rr * Rr).sum(0)
for it in range(ITERS):
    AP = Xt @ (X @ P) + LAM * P
    a = rs / np.maximum((P * AP).sum(0), 1e-30)
    D += P * a; Rr -= AP * a
    rn = (Rr * Rr).sum(0)
    P = Rr + P * (rn / np.maximum(rs, 1e-30)); rs = rn
W = W0 + D

sample = np.random.RandomState(0).choice(len(W), min(30000, len(W)), replace=False)
_, _, Vt = np.linalg.svd((W - W.mean(0))[sample], full_matrices=False)
W = W @ Vt[:DIMS].T
q, sc = quantise(W)
W = (q * sc).astype(np.float32).astype(np.float64)
W = W * np.array([idf(w) for w in vocab])[:, None]
keep = [i for i, w in enumerate(vocab) if w and w not in STOP and np.abs(W[i]).max() > 0]
W = W[keep]; vocab = [vocab[i] for i in keep]
sc = np.abs(W).max(axis=1) / 127
q = np.round(W / sc[:, None]).astype(np.int8)
vb = '\n'.join(vocab).encode('utf8'); pad = (-len(vb)) % 4
with open(OUT, 'wb') as f:
    f.write(struct.pack('<4sIII', b'ESV1', DIMS, len(vocab), len(vb) + pad))
    f.write(vb + b'\n' * pad)
    f.write(sc.astype('<f4').tobytes()); f.write(q.tobytes())
print(len(vocab), 'words,', DIMS, 'dimensions ->', OUT)

"""scikit-learn models on iris exported by skl2onnx (int, binary and string labels, with
and without ZipMap), for bench/wheels.sh --ort. usage: sklearn_models.py OUT_DIR"""
import os
import sys
import warnings

import numpy as np
from sklearn.cluster import KMeans
from sklearn.datasets import load_iris
from sklearn.decomposition import PCA
from sklearn.ensemble import GradientBoostingRegressor, RandomForestClassifier
from sklearn.linear_model import LinearRegression, LogisticRegression, SGDClassifier
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, LinearSVC
from sklearn.tree import DecisionTreeClassifier
from skl2onnx import to_onnx

warnings.filterwarnings('ignore')
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
X, y = load_iris(return_X_y=True)
X = X.astype(np.float32)
binary = (y > 0).astype(np.int64)
strings = np.array(['a', 'b', 'c'])[y]
cases = {
    'logreg': (make_pipeline(StandardScaler(), LogisticRegression(max_iter=500)), y),
    'rf': (RandomForestClassifier(n_estimators=10, max_depth=4, random_state=0), y),
    'svc': (SVC(probability=True, random_state=0), y),
    'knn': (KNeighborsClassifier(), y),
    'tree': (DecisionTreeClassifier(random_state=0), y),
    'mlp': (MLPClassifier(max_iter=300, random_state=0), y),
    'logreg_bin': (LogisticRegression(), binary),
    'svc_bin': (SVC(), binary),
    'svc_bin_prob': (SVC(probability=True, random_state=0), binary),
    'linsvc': (LinearSVC(random_state=0), y),
    'linsvc_bin': (LinearSVC(random_state=0), binary),
    'sgd': (SGDClassifier(random_state=0), y),
    'rf_str': (RandomForestClassifier(5, random_state=0), strings),
    'logreg_str': (LogisticRegression(max_iter=300), strings),
}
regressors = {
    'gbr': GradientBoostingRegressor(n_estimators=10, random_state=0),
    'kmeans': KMeans(3, n_init=2, random_state=0),
    'pca_lin': make_pipeline(PCA(2), LinearRegression()),
}
for name, (model, target) in cases.items():
    model.fit(X, target)
    for zipmap in (True, False):
        try:
            onx = to_onnx(model, X[:1], options={id(model): {'zipmap': zipmap}}, target_opset=17)
        except NameError:  # no probabilities, so no ZipMap (LinearSVC, SGD)
            if not zipmap:
                break
            onx = to_onnx(model, X[:1], target_opset=17)
        with open(os.path.join(out, f'{name}_{"zipmap" if zipmap else "plain"}.onnx'), 'wb') as f:
            f.write(onx.SerializeToString())
for name, model in regressors.items():
    model.fit(X, y)
    with open(os.path.join(out, f'{name}.onnx'), 'wb') as f:
        f.write(to_onnx(model, X[:1], target_opset=17).SerializeToString())

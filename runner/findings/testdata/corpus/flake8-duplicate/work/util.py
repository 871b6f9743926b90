import os
def path_of(name):
    return os.path.join("data", name)
def name_of(path):
    return os.path.basename(path)

import os
def path_of(name):
    return os.path.join("data", name)

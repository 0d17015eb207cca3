WS_COPTS = ["-std=c++20"]  # every cc rule: C++20 without .bazelrc flags, also in other workspaces

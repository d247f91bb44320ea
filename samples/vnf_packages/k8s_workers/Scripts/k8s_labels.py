# Tacker v2 management driver script: runs with tacker-conductor's
# Python, so placement_ext must be installed there. The logic and its
# settings are in placement_ext.adapters.tacker.k8s_labels_mgmt.
import sys

from placement_ext.adapters.tacker import k8s_labels_mgmt

sys.exit(k8s_labels_mgmt.main())

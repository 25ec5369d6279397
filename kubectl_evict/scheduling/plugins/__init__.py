"""kube-scheduler's default plugins (v1.30-v1.37; release differences are asked of `versions.FEATURES`), one module each, named as upstream names them
(`pkg/scheduler/framework/plugins/<name>/`). `FILTERS` is the Filter order of the default
profile for the plugins that look at more than the node's static facts; the static ones
(NodeUnschedulable, TaintToleration, NodeAffinity) are evaluated per node class by
`scheduling/placement.py`."""

from kubectl_evict.scheduling.plugins.interpodaffinity import InterPodAffinity
from kubectl_evict.scheduling.plugins.nodeports import NodePorts
from kubectl_evict.scheduling.plugins.noderesources import NodeResourcesFit
from kubectl_evict.scheduling.plugins.nodevolumelimits import NodeVolumeLimits
from kubectl_evict.scheduling.plugins.podtopologyspread import PodTopologySpread
from kubectl_evict.scheduling.plugins.volumebinding import VolumeBinding
from kubectl_evict.scheduling.plugins.volumerestrictions import VolumeRestrictions
from kubectl_evict.scheduling.plugins.volumezone import VolumeZone

FILTERS = (NodePorts(), NodeResourcesFit(), VolumeRestrictions(), NodeVolumeLimits(), VolumeBinding(),
           VolumeZone(), PodTopologySpread(), InterPodAffinity())

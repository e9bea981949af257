"""mobilenet: torchvision.models.mobilenet_v3_small with random weights and 10 classes on a 32x32 image; returns logits."""
import torch
import torchvision


def make_model():
    torch.manual_seed(0)
    return torchvision.models.mobilenet_v3_small(weights=None, num_classes=10).eval()


def example_inputs():
    g = torch.Generator().manual_seed(1)
    return (torch.randn(2, 3, 32, 32, generator=g),)

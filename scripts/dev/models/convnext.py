"""convnext: transformers ConvNextForImageClassification, tiny random config (hidden sizes 16/32, depths 1/1, 10 labels, image 32; depthwise 7x7 conv, channels-first LayerNorm, layer scale); returns logits."""
import torch
import transformers


class Wrap(torch.nn.Module):
    def __init__(self):
        super().__init__()
        cfg = transformers.ConvNextConfig(num_channels=3, num_stages=2, hidden_sizes=[16, 32], depths=[1, 1], num_labels=10,
                                          image_size=32, patch_size=4)
        self.m = transformers.ConvNextForImageClassification(cfg)

    def forward(self, pixel_values):
        return self.m(pixel_values=pixel_values).logits


def make_model():
    torch.manual_seed(0)
    return Wrap().eval()


def example_inputs():
    g = torch.Generator().manual_seed(1)
    return (torch.randn(2, 3, 32, 32, generator=g),)

"""swin: transformers SwinModel, tiny random config (image 32, patch 2, embed 16, depths (2, 2), heads (2, 4), window 4: shifted windows, roll, patch merging); returns last_hidden_state."""
import torch
import transformers


class Wrap(torch.nn.Module):
    def __init__(self):
        super().__init__()
        cfg = transformers.SwinConfig(image_size=32, patch_size=2, num_channels=3, embed_dim=16, depths=[2, 2],
                                      num_heads=[2, 4], window_size=4)
        self.m = transformers.SwinModel(cfg, add_pooling_layer=False)

    def forward(self, pixel_values):
        return self.m(pixel_values=pixel_values).last_hidden_state


def make_model():
    torch.manual_seed(0)
    return Wrap().eval()


def example_inputs():
    g = torch.Generator().manual_seed(1)
    return (torch.randn(1, 3, 32, 32, generator=g),)
